import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Integration tests start real PTYs and agent processes; two cores here.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
