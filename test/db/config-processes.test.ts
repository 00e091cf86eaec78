// Configuration of the process machinery: the sweeper's interval, the worker's shutdown grace time.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.ts';

describe('process configuration', () => {
  it('sweeps every 5 minutes unless PROCESS_SWEEP_INTERVAL says otherwise', () => {
    expect(loadConfig({}).processSweepIntervalMs).toBe(300_000);
    expect(loadConfig({ PROCESS_SWEEP_INTERVAL: '30s' }).processSweepIntervalMs).toBe(30_000);
    expect(() => loadConfig({ PROCESS_SWEEP_INTERVAL: '0s' })).toThrow(/^Invalid configuration: PROCESS_SWEEP_INTERVAL must be a positive duration/);
  });

  it("lets the worker's running activities finish for 30 s on SIGTERM unless WORKER_SHUTDOWN_GRACE says otherwise", () => {
    expect(loadConfig({}).workerShutdownGraceMs).toBe(30_000);
    expect(loadConfig({ WORKER_SHUTDOWN_GRACE: '2m' }).workerShutdownGraceMs).toBe(120_000);
    expect(() => loadConfig({ WORKER_SHUTDOWN_GRACE: 'soon' })).toThrow(/^Invalid configuration: WORKER_SHUTDOWN_GRACE must be a duration/);
  });
});
