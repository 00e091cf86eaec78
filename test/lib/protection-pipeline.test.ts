// The protections' pipeline (api/protections/pipeline.ts): hooks asked in order, the first verdict wins, every hook
// hears a failure, and each call's wall time reaches the timings.
import { describe, expect, it } from 'vitest';
import { createProtectionPipeline, type Attempt, type ProtectionHook } from '../../api/protections/pipeline.ts';

const attempt: Attempt = {
  environmentId: 'e',
  tenantId: 't',
  flow: 'sign_in',
  protections: {},
  login: 'ada@example.com',
  userId: null,
  origin: { ip: '203.0.113.1' },
  fields: {},
  headers: {},
};
const deny = { kind: 'deny' as const, policy: 'rate_limit' as const, reason: 'too_many', status: 429 as const, text: () => 'slow down' };

describe('createProtectionPipeline', () => {
  it('asks the hooks in order until one answers, tells every hook of a failure, and records each call’s time', async () => {
    const asked: string[] = [];
    const hook = (name: string, answer: typeof deny | null): ProtectionHook => ({
      policy: 'restrictions',
      before: async () => {
        asked.push(`before:${name}`);
        return answer;
      },
      failed: async () => {
        asked.push(`failed:${name}`);
      },
    });
    const times: number[] = [];
    const pipeline = createProtectionPipeline([hook('a', null), hook('b', deny), hook('c', null)], { record: (ms) => times.push(ms) });
    expect(await pipeline.before(attempt)).toBe(deny);
    await pipeline.failed(attempt);
    expect(await pipeline.succeeded(attempt)).toBeNull();
    expect(asked).toEqual(['before:a', 'before:b', 'failed:a', 'failed:b', 'failed:c']);
    expect(times).toHaveLength(3);
    expect(times.every((ms) => ms >= 0)).toBe(true);
  });
});
