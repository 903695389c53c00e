import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    setupFiles: ['test/setup.ts'],
    // Forks, not threads: tests kill processes, hold flocks and load a native addon.
    pool: 'forks',
    // Two files at a time: most of a file's time is spent waiting on servers and child processes,
    // so on CI's two cores this halves the suite (the default, one fewer than the cores, is one).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
