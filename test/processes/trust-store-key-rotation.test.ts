// Key rotation in the trust store, on both engines: the previous key is `retiring` (and still resolves) during its
// grace period, then its trust-store-key-retirement process retires it (status `retired`, one event from the
// system), also when the processes restart while it waits, or when its start was lost (the sweeper starts it).
import { Client, Connection } from '@temporalio/client';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EnvironmentIdKey, TenantIdKey } from '../../workflows/search-attributes.ts';
import { createApiSecret } from '../helpers/access-model.ts';
import { tenantEvents } from '../helpers/events.ts';
import { ENGINES, startTestAppWithProcesses, sweepOnce, type TestAppWithProcesses } from '../helpers/processes.ts';
import { keyPair, trustStoreEnvironment } from '../helpers/trust-store.ts';

let t: TestAppWithProcesses;
let env: Awaited<ReturnType<typeof trustStoreEnvironment>>;
let secret: string;
const POLL = { timeout: 20_000, interval: 100 };

const keyStatus = async (entryId: string, keyId: string) => (await env.call('GET', `/${entryId}/keys/${keyId}`)).body.key.status as string;
const resolvedKids = async (subject: string) => {
  const res = await t.app.inject({ method: 'GET', url: '/v1/mcp/trust-store/resolve', query: { subject }, headers: { authorization: `Bearer ${secret}` } });
  return (res.json().keys.keys as { kid: string }[]).map((k) => k.kid);
};

/** An entry with a key, rotated with `graceSeconds`: the old and the new key. */
async function rotated(subject: string, graceSeconds: number) {
  const entry = await env.create({ kind: 'workload', subject });
  const old = (await env.call('POST', `/${entry.id}/keys`, { jwk: (await keyPair()).jwk })).body.key;
  const res = await env.call('POST', `/${entry.id}/keys/rotate`, { jwk: (await keyPair('EdDSA')).jwk, gracePeriodSeconds: graceSeconds });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { entry, old, next: res.body.key, retiresAt: Date.parse(res.body.retiring[0].retiresAt) };
}

const retiredEvents = async (keyId: string) =>
  (await tenantEvents(t, env.tenantId, { type: 'mcp.trust_store.key.retired' })).filter((e) => (e.data.key as { id: string }).id === keyId);

describe.each(ENGINES)('trust-store key retirement process (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine });
    env = await trustStoreEnvironment(t);
    secret = (await createApiSecret(t.pool, env.environmentId, ['mcp'])).secret;
  });
  afterAll(() => t.close());

  it('keeps the old key retiring and resolvable during the grace period, then retires it with one event', async () => {
    const { entry, old, next, retiresAt } = await rotated(`rotation-${engine}`, 2);
    await expect.poll(() => t.processStatus(`trust-store-key-retirement:${old.id}`), POLL).toBe('running');
    expect(await keyStatus(entry.id, old.id)).toBe('retiring');
    expect(await resolvedKids(entry.subject as string)).toEqual([old.kid, next.kid]);
    if (engine === 'temporal') {
      // An operator finds the environment's processes in Temporal UI by EnvironmentId.
      const server = inject('temporal')!;
      const connection = await Connection.connect({ address: server.address });
      try {
        const description = await new Client({ connection, namespace: server.namespace }).workflow.getHandle(`trust-store-key-retirement:${old.id}`).describe();
        expect(description.typedSearchAttributes.get(EnvironmentIdKey)).toBe(env.environmentId);
        expect(description.typedSearchAttributes.get(TenantIdKey)).toBe(env.tenantId);
      } finally {
        await connection.close();
      }
    }

    await expect.poll(() => keyStatus(entry.id, old.id), POLL).toBe('retired');
    expect(Date.now()).toBeGreaterThanOrEqual(retiresAt);
    expect(await resolvedKids(entry.subject as string)).toEqual([next.kid]);
    const events = await retiredEvents(old.id);
    expect(events).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: 'trust-store-key-retirement' },
        environmentId: env.environmentId,
        data: { entryId: entry.id, key: expect.objectContaining({ id: old.id, status: 'retired', retiresAt: null }) },
      }),
    ]);
    await expect.poll(() => t.processStatus(`trust-store-key-retirement:${old.id}`), POLL).toBe('completed');
  });

  it('retires exactly once when the processes restart while it waits', async () => {
    const { entry, old } = await rotated(`restart-${engine}`, 3);
    await expect.poll(() => t.processStatus(`trust-store-key-retirement:${old.id}`), POLL).toBe('running');
    await t.restartProcesses();
    expect(await keyStatus(entry.id, old.id)).toBe('retiring');
    await expect.poll(() => keyStatus(entry.id, old.id), POLL).toBe('retired');
    await expect.poll(() => t.processStatus(`trust-store-key-retirement:${old.id}`), POLL).toBe('completed');
    expect(await retiredEvents(old.id)).toHaveLength(1);
  });

  it('leaves a key revoked during its grace period revoked: the process settles without an event', async () => {
    const { entry, old } = await rotated(`revoked-${engine}`, 2);
    await env.call('POST', `/${entry.id}/keys/${old.id}/revoke`);
    await expect.poll(() => t.processStatus(`trust-store-key-retirement:${old.id}`), POLL).toBe('completed');
    expect(await keyStatus(entry.id, old.id)).toBe('revoked');
    expect(await retiredEvents(old.id)).toEqual([]);
  });

  it('is started by the sweeper when its start was lost', async () => {
    await t.processes.stop();
    const { entry, old } = await rotated(`lost-${engine}`, 1);
    await t.pool.query(sql.unsafe`DELETE FROM process_outbox WHERE process_id = ${`trust-store-key-retirement:${old.id}`}`);
    await t.restartProcesses();
    expect(await t.processStatus(`trust-store-key-retirement:${old.id}`)).toBe('unknown');
    expect((await sweepOnce(t)).started).toBeGreaterThanOrEqual(1);
    await expect.poll(() => keyStatus(entry.id, old.id), POLL).toBe('retired');
    await expect.poll(() => t.processStatus(`trust-store-key-retirement:${old.id}`), POLL).toBe('completed');
    expect(await retiredEvents(old.id)).toHaveLength(1);
  });
});
