// Configuration of the process machinery: the sweeper's interval.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.ts';

describe('process configuration', () => {
  it('sweeps every 5 minutes unless PROCESS_SWEEP_INTERVAL says otherwise', () => {
    expect(loadConfig({}).processSweepIntervalMs).toBe(300_000);
    expect(loadConfig({ PROCESS_SWEEP_INTERVAL: '30s' }).processSweepIntervalMs).toBe(30_000);
    expect(() => loadConfig({ PROCESS_SWEEP_INTERVAL: '0s' })).toThrow(/^Invalid configuration: PROCESS_SWEEP_INTERVAL must be a positive duration/);
  });
});
