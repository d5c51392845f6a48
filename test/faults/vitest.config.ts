import { defineConfig } from 'vitest/config';

// `npm run faults`: the long version of every fault (FAULTS_LONG=1), one file at a time
// (they start many processes on a small machine), and the results table at the end.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/faults/helpers/table.ts'],
    reporters: ['default'],
  },
});
