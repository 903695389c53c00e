import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    setupFiles: ['test/setup.ts'],
    // Forks, not threads: tests kill processes, hold flocks and load a native addon.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
