// The engine's conformance cases (test/lib/fga/conformance-cases.ts) through the HTTP API against Postgres: each
// case in a store of its own, its model written as DSL and its tuples through POST …/write; then its checks,
// list-objects and list-users expectations, and the agreement sweep (list-objects against batch-check on every
// object, relation and user the case names).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileModel, parseModelDsl } from '../../lib/fga/model.ts';
import { parseTupleKey } from '../../lib/fga/tuples.ts';
import type { TupleKey } from '../../lib/fga/types.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fgaStore, type FgaStore } from '../helpers/fga.ts';
import { keyOf } from '../helpers/fga-memory-reader.ts';
import { conformanceCases, type ConformanceCase } from '../lib/fga/conformance-cases.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

type ListedUser = { object?: { type: string; id: string }; userset?: { type: string; id: string; relation: string }; wildcard?: { type: string } };
const listed = (u: ListedUser) =>
  u.object ? `${u.object.type}:${u.object.id}` : u.wildcard ? `${u.wildcard.type}:*` : `${u.userset!.type}:${u.userset!.id}#${u.userset!.relation}`;

async function ok<T>(response: Promise<{ statusCode: number; body: string; json(): unknown }>, what: string): Promise<T> {
  const res = await response;
  expect(res.statusCode, `${what}: ${res.body}`).toBe(200);
  return res.json() as T;
}

async function setUp(c: ConformanceCase): Promise<FgaStore> {
  const store = await fgaStore(t);
  const model = await t.app.inject({
    method: 'POST',
    url: `/v1/fga/stores/${store.storeId}/authorization-models`,
    headers: { authorization: `Bearer ${store.secret}`, 'content-type': 'text/plain' },
    payload: c.model,
  });
  expect(model.statusCode, model.body).toBe(201);
  const keys = c.tuples.map((k) => (typeof k === 'string' ? keyOf(k) : k));
  for (let i = 0; i < keys.length; i += 100) {
    await ok(store.call('POST', 'write', { writes: { tuple_keys: keys.slice(i, i + 100) } }), 'write');
  }
  return store;
}

const contextual = (tuples: TupleKey[] | undefined) => (tuples ? { contextual_tuples: { tuple_keys: tuples } } : {});

describe('FGA conformance through the HTTP API', () => {
  for (const c of conformanceCases) {
    it(c.name, async () => {
      const store = await setUp(c);

      for (const q of c.checks) {
        const label = `${q.object}#${q.relation}@${q.user}`;
        const res = await store.call('POST', 'check', {
          tuple_key: { user: q.user, relation: q.relation, object: q.object },
          ...(q.context ? { context: q.context } : {}),
          ...contextual(q.contextualTuples),
        });
        if (typeof q.expected === 'boolean') {
          expect(res.statusCode, `${label}: ${res.body}`).toBe(200);
          expect((res.json() as { allowed: boolean }).allowed, label).toBe(q.expected);
        } else {
          expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
          expect(res.json(), label).toMatchObject({ code: q.expected.error });
        }
      }

      for (const q of c.listObjects ?? []) {
        const body = await ok<{ objects: string[] }>(
          store.call('POST', 'list-objects', {
            type: q.type,
            relation: q.relation,
            user: q.user,
            ...(q.context ? { context: q.context } : {}),
            ...contextual(q.contextualTuples),
          }),
          'list-objects',
        );
        expect(body.objects.sort(), `${q.type}#${q.relation}@${q.user}`).toEqual([...q.expected].sort());
      }

      for (const q of c.listUsers ?? []) {
        const colon = q.object.indexOf(':');
        const body = await ok<{ users: ListedUser[] }>(
          store.call('POST', 'list-users', {
            object: { type: q.object.slice(0, colon), id: q.object.slice(colon + 1) },
            relation: q.relation,
            user_filters: q.filters,
            ...(q.context ? { context: q.context } : {}),
            ...(q.contextualTuples ? { contextual_tuples: q.contextualTuples } : {}),
          }),
          'list-users',
        );
        expect(body.users.map(listed).sort(), `${q.object}#${q.relation}`).toEqual([...q.expected].sort());
      }

      if (c.sweep === false) return;
      const model = compileModel(await parseModelDsl(c.model));
      const tuples = c.tuples.map((k) => parseTupleKey(typeof k === 'string' ? keyOf(k) : k));
      const objects = new Map<string, Set<string>>();
      const users = new Set<string>();
      for (const x of tuples) {
        for (const [type, id] of [
          [x.objectType, x.objectId],
          [x.userType, x.userId],
        ] as const) {
          if (id !== '*') objects.set(type, (objects.get(type) ?? new Set()).add(`${type}:${id}`));
        }
        if (!x.userRelation && x.userId !== '*') users.add(`${x.userType}:${x.userId}`);
      }
      for (const type of model.types.keys()) users.add(`${type}:nobody-named`);
      const context = c.sweepContext ? { context: c.sweepContext } : {};
      let compared = 0;
      for (const [type, definition] of model.types) {
        const ofType = [...(objects.get(type) ?? [])];
        for (const relation of definition.relations.keys()) {
          for (const user of users) {
            const { objects: found } = await ok<{ objects: string[] }>(
              store.call('POST', 'list-objects', { type, relation, user, ...context }),
              'list-objects',
            );
            for (let i = 0; i < ofType.length; i += 50) {
              const chunk = ofType.slice(i, i + 50);
              const { result } = await ok<{ result: Record<string, { allowed?: boolean; error?: unknown }> }>(
                store.call('POST', 'batch-check', {
                  checks: chunk.map((object, n) => ({ tuple_key: { user, relation, object }, correlation_id: String(n), ...context })),
                }),
                'batch-check',
              );
              chunk.forEach((object, n) => {
                expect(result[String(n)], `${object}#${relation}@${user}`).toEqual({ allowed: found.includes(object) });
                compared++;
              });
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(0);
    });
  }
});
