import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.ts';

describe('configuration', () => {
  it('has defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', processEngine: 'embedded', publicBaseUrl: 'http://127.0.0.1:8080', logLevel: 'info' });
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it.each([
    [{ PORT: 'eighty' }, /^Invalid configuration: PORT must be a number/],
    [{ PORT: '70000' }, /PORT must be 0\.\.65535/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be a postgres:\/\/ URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ ALLOW_PRIVATE_NETWORK_TARGETS: 'maybe' }, /ALLOW_PRIVATE_NETWORK_TARGETS must be true or false/],
    [{ PROCESS_ENGINE: 'temporal' }, /TEMPORAL_ADDRESS is required/],
    [{ MASTER_KEY: 'short' }, /^Invalid configuration: MASTER_KEY must be 32 bytes[^"]*$/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /^Invalid configuration: TRUST_PROXY must be true, false, a number of proxy hops, or a comma-separated list/],
    [{ TRUST_PROXY: 'proxy.internal' }, /TRUST_PROXY must be true, false/],
    [
      { DELIVERIES_RETENTION: '1d' },
      'Invalid configuration: DELIVERIES_RETENTION (1d) must be longer than the whole WEBHOOK_RETRY_SCHEDULE (1d3h35m5s): deliveries would expire while they are still retried',
    ],
    [
      { DELIVERIES_RETENTION: '10d', WEBHOOK_RETRY_SCHEDULE: '0,1h,10d' },
      /DELIVERIES_RETENTION \(10d\) must be longer than the whole WEBHOOK_RETRY_SCHEDULE \(10d1h\)/,
    ],
  ])('refuses %o with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as Error).message.split('\n')).toHaveLength(1);
    }
  });

  it.each([
    [undefined, false],
    ['true', true],
    ['FALSE', false],
    ['2', 2],
    ['10.0.0.0/8, 192.168.1.10,fd00::/8 , loopback', ['10.0.0.0/8', '192.168.1.10', 'fd00::/8', 'loopback']],
  ])('reads TRUST_PROXY=%s as %o', (value, trustProxy) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy).toEqual(trustProxy);
  });

  it('keeps deliveries 30 days and finished process records 7 days by default; a retention longer than the retry schedule is taken', () => {
    expect(loadConfig({}).retention).toMatchObject({ retentionMs: { deliveries: 30 * 86_400_000 }, processHistoryMs: 7 * 86_400_000 });
    expect(loadConfig({ DELIVERIES_RETENTION: '2d', WEBHOOK_RETRY_SCHEDULE: '0,1h,1d' }).retention.retentionMs.deliveries).toBe(2 * 86_400_000);
  });

  it('selects Temporal when TEMPORAL_ADDRESS is set', () => {
    expect(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' }).processEngine).toBe('temporal');
  });
});
