import { defineConfig } from 'vitest/config';

// Two groups, side by side. The suites that answer requests (the browser's among them: they wait for pages, never for
// time), two files at a time (the machine this runs on has 2 cores; vitest's default there is one). Beside them, the
// suites that wait on time: durable processes on both engines, the Temporal server's own suites and the bench, one
// file at a time, because a process suite's waits starve beside another process suite (the Temporal OIDC clean-up
// missed its waits next to the webhook backlog); they spend most of their time waiting, so the two groups together
// take little longer than the longer one alone (11 min rather than 15).
const SERIAL = ['test/processes/**/*.test.ts', 'test/temporal/**/*.test.ts', 'test/bench/**/*.test.ts'];

const common = {
  pool: 'forks',
  // Files and the tests in each run in a random order: a test that depends on another's leftovers fails.
  // The seed is printed at the start of the run; replay an order with --sequence.seed=<seed>.
  testTimeout: 30_000,
  hookTimeout: 60_000,
} as const;

export default defineConfig({
  test: {
    // The root's global setup runs once for the whole run and provides to both projects.
    globalSetup: ['test/setup/global-setup.ts', 'test/setup/temporal.ts', 'test/setup/chromium.ts', 'test/setup/pebble.ts', 'test/setup/prometheus.ts'],
    sequence: { shuffle: true },
    reporters: ['default'],
    projects: [
      {
        test: {
          ...common,
          name: 'requests',
          include: ['test/**/*.test.ts'],
          exclude: SERIAL,
          maxWorkers: 2,
          // One module graph per worker, not per file: importing the app for each of 220 files was half the group's
          // time. The files share no module state that matters (no mocks, no stubbed globals or env).
          isolate: false,
          sequence: { shuffle: true, groupOrder: 0 },
        },
      },
      { test: { ...common, name: 'waits', include: SERIAL, maxWorkers: 1, sequence: { shuffle: true, groupOrder: 0 } } },
    ],
  },
});
