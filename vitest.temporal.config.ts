// `npm run test:temporal`: the process suites on a real Temporal server (TEMPORAL_ADDRESS, e.g. docker compose).
// Without TEMPORAL_ADDRESS they are skipped with the reason printed, and the run exits 0.
// Files are named *.temporal.ts so that the default vitest config (test/**/*.test.ts) never runs them.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/temporal/**/*.temporal.ts'],
    // The embedded Postgres (cloned test databases) is started only when the suites will run.
    globalSetup: process.env.TEMPORAL_ADDRESS ? ['test/setup/global-setup.ts'] : [],
    // Temporal's native core-bridge misbehaves under worker threads (temporal-notes §3.6).
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    passWithNoTests: true,
    reporters: ['verbose'],
  },
});
