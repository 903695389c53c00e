import { configDefaults, defineConfig } from 'vitest/config';

/** Tests that keep what every process on the machine shares busy (the kernel's lock table): run alone, after the rest. */
const ALONE = ['test/store/file/lock-churn.test.ts'];

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    // Forks, not threads: tests kill processes, hold flocks and load a native addon.
    pool: 'forks',
    // Two files at a time: most of a file's time is spent waiting on servers and child processes,
    // so on CI's two cores this halves the suite (the default, one fewer than the cores, is one).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: [...configDefaults.exclude, ...ALONE], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'churn', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
