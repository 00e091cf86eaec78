import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts', 'test/setup/temporal.ts', 'test/setup/chromium.ts'],
    pool: 'forks',
    // Files and the tests in each run in a random order: a test that depends on another's leftovers fails.
    // The seed is printed at the start of the run; replay an order with --sequence.seed=<seed>.
    sequence: { shuffle: true },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
