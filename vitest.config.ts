import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Integration tests start real PTYs and agent processes; two cores here.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most files wait on real agents, PTYs, tmux, sshd and timers rather than compute: two
    // at a time even on two cores (the default there is one), and every wait is generous.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
