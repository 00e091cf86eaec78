import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_CATALOG } from '../../db/event-catalog.ts';
import { recordChange } from '../../db/shared/changes.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { pastCommitHorizon } from '../helpers/events.ts';

interface Event {
  id: string;
  type: string;
  sequence: number;
  environmentId: string | null;
  occurredAt: string;
  data: Record<string, unknown>;
}
interface Page {
  events: Event[];
  nextCursor: string;
  hasMore: boolean;
}

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
afterAll(() => t.close());

const newTenant = async (name = 'events') =>
  (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(token), payload: { name } })).json().tenant as { id: string };

/** Emits a `webhook.test` event in its own transaction (the way every mutation does). */
const emit = (db: DatabasePool, tenantId: string, message: string, environmentId: string | null = null) =>
  db.transaction((trx) =>
    recordChange(trx, {
      actor: { type: 'system', id: 'test' },
      action: 'test.emit',
      resource: { type: 'test', id: null },
      scope: { tenantId, environmentId },
      event: { type: 'webhook.test', data: { message } },
    }),
  );

const read = async (tenantId: string, query = '', auth = token) => {
  const res = await t.app.inject({ method: 'GET', url: `/v1/tenants/${tenantId}/events${query ? `?${query}` : ''}`, headers: bearer(auth) });
  return res;
};
const page = async (tenantId: string, query = '') => {
  const res = await read(tenantId, query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
};

describe('GET /v1/tenants/{tenantId}/events', () => {
  it('returns the events of a tenant, oldest first, in the documented shape', async () => {
    const tenant = await newTenant('shape');
    await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenant.id}`, headers: bearer(token), payload: { name: 'shape 2' } });
    await pastCommitHorizon(t);
    const body = await page(tenant.id);
    expect(body.hasMore).toBe(false);
    expect(body.events.map((e) => e.type)).toEqual(['tenant.created', 'tenant.updated']);
    expect(body.events[0]).toEqual({
      id: expect.any(String),
      type: 'tenant.created',
      sequence: expect.any(Number),
      organizationId: t.credentials.organizationId,
      tenantId: tenant.id,
      environmentId: null,
      actor: { type: 'service_account', id: expect.any(String) },
      subject: { type: 'tenant', id: tenant.id },
      data: { tenant },
      occurredAt: expect.stringMatching(/Z$/),
    });
    expect(body.events[1]!.sequence).toBeGreaterThan(body.events[0]!.sequence);
    expect(body.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('pages with an opaque cursor; an empty page hands the same cursor back', async () => {
    const tenant = await newTenant('paging');
    for (let i = 0; i < 4; i++) await emit(t.pool, tenant.id, `m${i}`);
    await pastCommitHorizon(t);
    const all = (await page(tenant.id)).events;
    expect(all).toHaveLength(5);
    const seen: Event[] = [];
    let cursor = '';
    const hasMore: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await page(tenant.id, `limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...p.events);
      hasMore.push(p.hasMore);
      cursor = p.nextCursor;
    }
    expect(seen).toEqual(all);
    expect(hasMore).toEqual([true, true, false]);
    const empty = await page(tenant.id, `cursor=${cursor}`);
    expect(empty).toEqual({ events: [], nextCursor: cursor, hasMore: false });
    await emit(t.pool, tenant.id, 'later');
    await pastCommitHorizon(t);
    expect((await page(tenant.id, `cursor=${cursor}`)).events.map((e) => e.data)).toEqual([{ message: 'later' }]);
  });

  it('filters by type (repeatable, with prefixes), environment and half-open time range', async () => {
    const tenant = await newTenant('filters');
    const environmentId = crypto.randomUUID();
    await emit(t.pool, tenant.id, 'in env', environmentId);
    await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenant.id}`, headers: bearer(token), payload: { name: 'filters 2' } });
    await pastCommitHorizon(t);
    const types = async (query: string) => (await page(tenant.id, query)).events.map((e) => e.type);
    expect(await types('type=tenant.updated')).toEqual(['tenant.updated']);
    expect(await types('type=tenant.created&type=webhook.test')).toEqual(['tenant.created', 'webhook.test']);
    expect(await types('type=tenant.*')).toEqual(['tenant.created', 'tenant.updated']);
    expect(await types('type=webhook.*&type=tenant.updated')).toEqual(['webhook.test', 'tenant.updated']);
    expect(await types('type=*')).toHaveLength(3);
    expect(await types('type=tenant.deleted')).toEqual([]);
    expect(await types(`environmentId=${environmentId}`)).toEqual(['webhook.test']);

    const all = (await page(tenant.id)).events;
    const at = encodeURIComponent(all[1]!.occurredAt);
    expect((await page(tenant.id, `occurredAfter=${at}`)).events.every((e) => e.occurredAt >= all[1]!.occurredAt)).toBe(true);
    expect((await page(tenant.id, `occurredAfter=${at}`)).events.map((e) => e.id)).toContain(all[1]!.id);
    expect((await page(tenant.id, `occurredBefore=${at}`)).events.map((e) => e.id)).not.toContain(all[1]!.id);
    expect((await page(tenant.id, `occurredAfter=${at}&occurredBefore=${at}`)).events).toEqual([]);
  });

  it("rejects a bad cursor, limit or type naming the parameter, and hides other organizations' tenants", async () => {
    const tenant = await newTenant('errors');
    for (const [query, path] of [
      ['cursor=nope', 'querystring.cursor'],
      [`cursor=${Buffer.from('1.x').toString('base64url')}`, 'querystring.cursor'],
      ['limit=0', 'querystring.limit'],
      ['limit=201', 'querystring.limit'],
      ['type=Tenant%20created', 'querystring.type'],
      ['occurredAfter=yesterday', 'querystring.occurredAfter'],
    ]) {
      const res = await read(tenant.id, query);
      expect(res.statusCode, query).toBe(400);
      expect(
        res.json().details.map((d: { path: string }) => d.path),
        query,
      ).toContain(path);
    }
    const other = await otherOrganization(t);
    const theirs = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(other.token), payload: { name: 'theirs' } })).json().tenant;
    for (const id of [theirs.id, crypto.randomUUID()]) {
      const res = await read(id);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    await pastCommitHorizon(t);
    expect((await read(theirs.id, '', other.token)).json().events).toHaveLength(1);
    expect((await read(tenant.id, '', await t.token('tenants:read'))).statusCode).toBe(403);
    expect((await read(tenant.id, '', await t.token('events:read'))).statusCode).toBe(200);
  });
});

describe('the no-skip guarantee', () => {
  const TxIds = z.object({ id: z.uuid(), txId: z.string(), sequence: z.coerce.number() });
  const positions = async (ids: string[]) =>
    new Map(
      (
        await t.pool.any(sql.type(TxIds)`
    SELECT id, tx_id::text AS "txId", sequence FROM events WHERE id = ANY(${sql.array(ids, 'uuid')})`)
      ).map((r) => [r.id, r]),
    );

  it('returns an event of a transaction that drew a lower sequence but committed later, after the one that committed first', async () => {
    const tenant = await newTenant('race');
    const gate = () => {
      let open!: () => void;
      const p = new Promise<void>((r) => (open = r));
      return { p, open };
    };
    const [olderHasXid, youngerInserted, olderCommitted, releaseYounger] = [gate(), gate(), gate(), gate()];
    // Older: takes its transaction id first, but draws its sequence after younger; commits first.
    const older = t.pool
      .transaction(async (trx) => {
        await trx.query(sql.unsafe`SELECT pg_current_xact_id()`);
        olderHasXid.open();
        await youngerInserted.p;
        await emit(trx as never, tenant.id, 'older');
      })
      .then(() => olderCommitted.open());
    const younger = t.pool.transaction(async (trx) => {
      await olderHasXid.p;
      await emit(trx as never, tenant.id, 'younger');
      youngerInserted.open();
      await releaseYounger.p;
    });
    await olderCommitted.p;
    const seen: Event[] = [];
    let cursor = '';
    const poll = async (until: () => boolean) => {
      for (let i = 0; i < 400 && !until(); i++) {
        const p = await page(tenant.id, `type=webhook.test${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...p.events);
        cursor = p.nextCursor;
        if (!until()) await new Promise((r) => setTimeout(r, 25));
      }
    };
    await poll(() => seen.length === 1); // the older transaction ended, so its event is out while younger still runs
    releaseYounger.open();
    await Promise.all([older, younger]);
    await poll(() => seen.length === 2);
    expect(seen.map((e) => e.data.message)).toEqual(['older', 'younger']);
    // The interleaving that breaks a sequence-only cursor did happen: the later event has the lower sequence.
    expect(seen[1]!.sequence).toBeLessThan(seen[0]!.sequence);
  });

  it('a reader paging while four writers commit concurrently sees every event exactly once, in stream order', async () => {
    const tenant = await newTenant('concurrency');
    const writers = await createDatabasePool(t.databaseUrl, { maxPoolSize: 4 });
    let done = false;
    const written: string[] = [];
    const writer = async (w: number) => {
      for (let i = 0; i < 25; i++) {
        await writers.transaction(async (trx) => {
          for (let j = 0; j < 1 + (i % 2); j++) written.push((await emit(trx as never, tenant.id, `w${w}-${i}-${j}`)).eventId);
          await trx.query(sql.unsafe`SELECT pg_sleep(${Math.random() * 0.008})`);
        });
      }
    };
    const seen: Event[] = [];
    const reader = async () => {
      let cursor = '';
      for (let deadline = Date.now() + 25_000; Date.now() < deadline;) {
        const p = await page(tenant.id, `type=webhook.test&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...p.events);
        cursor = p.nextCursor;
        if (done && !p.hasMore && seen.length >= written.length) return;
        if (p.events.length === 0) await new Promise((r) => setTimeout(r, 2));
      }
    };
    try {
      const reading = reader();
      await Promise.all([0, 1, 2, 3].map(writer));
      done = true;
      await reading;
    } finally {
      await writers.end();
    }
    expect(written).toHaveLength(4 * (13 + 12 * 2));
    expect(seen.map((e) => e.id).sort()).toEqual([...written].sort());
    const at = await positions(written);
    const keys = seen.map((e) => at.get(e.id)!);
    for (let i = 1; i < keys.length; i++) {
      const [a, b] = [keys[i - 1]!, keys[i]!];
      const ascending = BigInt(a.txId) < BigInt(b.txId) || (a.txId === b.txId && a.sequence < b.sequence);
      expect(ascending, `event ${i} follows event ${i - 1}`).toBe(true);
    }
  });
});

describe('GET /v1/event-types', () => {
  it('lists every catalogued type with a description and the JSON Schema of its data', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/event-types', headers: bearer(await t.token('events:read')) });
    expect(res.statusCode).toBe(200);
    const { eventTypes } = res.json() as { eventTypes: { type: string; description: string; schema: { type: string; properties: object } }[] };
    expect(eventTypes.map((e) => e.type)).toEqual(Object.keys(EVENT_CATALOG).sort());
    for (const e of eventTypes) {
      expect(e.description, e.type).toMatch(/\S/);
      expect(e.schema, e.type).toMatchObject({ $schema: expect.stringContaining('json-schema.org'), type: 'object', properties: expect.any(Object) });
    }
    const updated = eventTypes.find((e) => e.type === 'tenant.updated')!;
    expect(updated.schema).toMatchObject({ required: ['tenant', 'previous'] });
  });
});
