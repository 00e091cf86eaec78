// A process on the embedded engine outlives a database outage of any length (its activities retry without a
// cap, at most a minute apart: shortened here), and fails at once, without retrying, on a programming error.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedEngine, type EmbeddedEngine } from '../../worker/embedded-engine.ts';
import type { Activities } from '../../workflows/activities.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let engine: EmbeddedEngine;
const calls = new Map<string, number>();
/** Fails as the invitation id says: `outage` 15 times then expires it, `bug` with a TypeError every time. */
const activities = {
  expireInvitation: ({ invitationId }: { invitationId: string }) => {
    const n = (calls.get(invitationId) ?? 0) + 1;
    calls.set(invitationId, n);
    if (invitationId.startsWith('bug')) return Promise.reject(new TypeError("Cannot read properties of undefined (reading 'expiresAt')"));
    if (n <= 15) return Promise.reject(new Error('Connection terminated unexpectedly'));
    return Promise.resolve({ outcome: 'expired' as const });
  },
} as unknown as Activities;

beforeAll(async () => {
  t = await startTestApp();
  engine = await startEmbeddedEngine({
    databaseUrl: t.databaseUrl,
    activities,
    adjustRetry: (retry) => ({ ...retry, initialIntervalMs: 1, maximumIntervalMs: 5 }),
  });
});
afterAll(async () => {
  await engine.stop();
  await t.close();
});

describe('activity retries on the embedded engine', () => {
  it('outlive an outage of more than ten attempts: the process completes', async () => {
    const id = `outage-${randomUUID()}`;
    await engine.gateway.start('invitation-expiry', `invitation-expiry:${id}`, { invitationId: id, expiresAt: 0 }, { tenantId: null });
    await expect.poll(async () => (await engine.gateway.describe(`invitation-expiry:${id}`)).status, { timeout: 10_000 }).toBe('completed');
    expect(calls.get(id)).toBe(16);
  });

  it('do not retry a programming error: the process fails after one attempt', async () => {
    const id = `bug-${randomUUID()}`;
    await engine.gateway.start('invitation-expiry', `invitation-expiry:${id}`, { invitationId: id, expiresAt: 0 }, { tenantId: null });
    await expect.poll(async () => (await engine.gateway.describe(`invitation-expiry:${id}`)).status, { timeout: 10_000 }).toBe('failed');
    expect(calls.get(id)).toBe(1);
  });
});
