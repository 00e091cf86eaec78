// The protections' pipeline (api/protections/pipeline.ts): every hook asked at once, the verdict of the first in
// order wins (not the first to answer) and only its refusal is recorded, every hook hears a failure and a success,
// and each call's wall time reaches the timings.
import type { CommonQueryMethods } from 'slonik';
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

const deny = (reason: string) => ({ kind: 'deny' as const, policy: 'rate_limit' as const, reason, status: 429 as const, text: () => 'slow down' });
/** The hooks here make no statement, so their batches never reach a database. */
const unusedDatabase = {} as CommonQueryMethods;
/** A promise and the function that settles it, so a test decides which hook answers first. */
const later = <T>() => {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (settle = resolve));
  return { promise, settle };
};

describe('createProtectionPipeline', () => {
  it('asks every hook at once and answers the refusal of the first in order, recording only that one', async () => {
    const asked: string[] = [];
    const recorded: string[] = [];
    const slow = later<null>();
    const slowDeny = later<void>();
    const hook = (name: string, answer: () => Promise<ReturnType<typeof deny> | null>): ProtectionHook => ({
      policy: 'restrictions',
      before: async () => {
        asked.push(`before:${name}`);
        const refusal = await answer();
        return refusal && { refusal, record: async () => void recorded.push(name) };
      },
      failed: async () => void asked.push(`failed:${name}`),
      succeeded: async () => {
        asked.push(`succeeded:${name}`);
        return null;
      },
    });
    const times: number[] = [];
    const pipeline = createProtectionPipeline(
      [hook('a', () => slow.promise), hook('b', async () => (await slowDeny.promise, deny('b'))), hook('c', async () => deny('c'))],
      { db: unusedDatabase, timings: { record: (ms) => times.push(ms) } },
    );
    const verdict = pipeline.before(attempt);
    // All three are asked before any answers; c refuses first, but b comes before it in order.
    await Promise.resolve();
    expect(asked).toEqual(['before:a', 'before:b', 'before:c']);
    slowDeny.settle();
    slow.settle(null);
    expect(await verdict).toMatchObject({ kind: 'deny', reason: 'b' });
    expect(recorded).toEqual(['b']);

    asked.length = 0;
    await pipeline.failed(attempt);
    expect(await pipeline.succeeded(attempt)).toBeNull();
    expect(asked).toEqual(['failed:a', 'failed:b', 'failed:c', 'succeeded:a', 'succeeded:b', 'succeeded:c']);
    expect(times).toHaveLength(3);
    expect(times.every((ms) => ms >= 0)).toBe(true);
  });

  it('answers nothing and records nothing when no hook refuses; a step-up after success is the first in order', async () => {
    const stepUp = { kind: 'step_up' as const, policy: 'device_risk' as const, reason: 'unrecognized_device' };
    const pipeline = createProtectionPipeline(
      [
        { policy: 'brute_force', before: async () => null, succeeded: async () => null },
        { policy: 'device_risk', succeeded: async () => stepUp },
        { policy: 'rate_limit', succeeded: async () => ({ ...stepUp, reason: 'second' }) },
      ],
      { db: unusedDatabase },
    );
    expect(await pipeline.before(attempt)).toBeNull();
    expect(await pipeline.succeeded(attempt)).toBe(stepUp);
  });
});
