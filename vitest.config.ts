import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts', 'test/setup/temporal.ts', 'test/setup/chromium.ts'],
    pool: 'forks',
    // Two files at once on the 2-core machines we run on (vitest's default would be one: cores - 1): most of a file's
    // time is waiting (its database cloned from the template, processes, timers), so two overlap well.
    maxWorkers: 2,
    // Files and the tests in each run in a random order: a test that depends on another's leftovers fails.
    // The seed is printed at the start of the run; replay an order with --sequence.seed=<seed>.
    sequence: { shuffle: true },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
