import { defineConfig } from 'vitest/config';

const LONG = process.env.FAULTS_LONG === '1';

// `npm run faults`: the long version of every fault (FAULTS_LONG=1), one file at a time
// (they start many processes on a small machine, and some measure times), and the results
// table at the end. `npm run faults:short`: the short versions, two files at a time as in
// `npm test` (they assert no time, and mostly wait on their agents).
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: !LONG,
    maxWorkers: LONG ? 1 : 2,
    globalSetup: ['test/faults/helpers/table.ts'],
    reporters: ['default'],
  },
});
