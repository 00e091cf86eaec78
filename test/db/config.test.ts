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

  it('selects Temporal when TEMPORAL_ADDRESS is set', () => {
    expect(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' }).processEngine).toBe('temporal');
  });
});
