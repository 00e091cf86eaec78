// The FGA API over HTTP: who may call it, OpenFGA's error shapes and codes, write semantics (duplicates, missing
// tuples, the 100-tuple limit, one transaction with the change log), paging, audit and events, caches and
// concurrency, and hostile bodies.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiSecret } from '../helpers/access-model.ts';
import { auditEntries, pastCommitHorizon, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { DOCS_MODEL, fgaStore, type FgaStore } from '../helpers/fga.ts';

let t: TestApp;
let store: FgaStore;
let modelId: string;

const Count = z.object({ n: z.number() });
const changeCount = (environmentId: string) =>
  t.pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM fga_changes WHERE environment_id = ${environmentId}`);

async function writeDsl(s: FgaStore, dsl = DOCS_MODEL) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/fga/stores/${s.storeId}/authorization-models`,
    headers: { authorization: `Bearer ${s.secret}`, 'content-type': 'text/plain' },
    payload: dsl,
  });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { authorization_model_id: string }).authorization_model_id;
}

const key = (user: string, relation: string, object: string) => ({ user, relation, object });

beforeAll(async () => {
  t = await startTestApp();
  store = await fgaStore(t);
  modelId = await writeDsl(store);
});
afterAll(() => t?.close());

describe('authentication', () => {
  it('401 without credentials, in OpenFGA’s shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/fga/stores/${store.storeId}` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'bearer_token_missing', message: expect.any(String), error: expect.any(String), requestId: expect.any(String) });
    const invalid = await store.call('GET', '', undefined, 'adenv_0000000000000000000000000000000000000000');
    expect(invalid.statusCode).toBe(401);
    expect(invalid.json()).toMatchObject({ code: 'unauthenticated' });
  });

  it('reads a DSL body only once the caller is authenticated, and text/plain only for a model', async () => {
    const url = `/v1/fga/stores/${store.storeId}/authorization-models`;
    const anonymous = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: 'not a model' });
    expect(anonymous.statusCode).toBe(401);
    const check = await t.app.inject({
      method: 'POST',
      url: `/v1/fga/stores/${store.storeId}/check`,
      headers: { authorization: `Bearer ${store.secret}`, 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(check.statusCode).toBe(415);
    expect(check.json()).toMatchObject({ code: 'validation_error' });
  });

  it('403 for an environment API secret without the purpose fga', async () => {
    const { secret } = await createApiSecret(t.pool, store.environmentId, ['authzen']);
    const res = await store.call('GET', '', undefined, secret);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden', message: expect.stringContaining('fga') });
  });

  it('404 for a store that is not the caller’s, with either credential', async () => {
    const other = await fgaStore(t);
    const bySecret = await other.call('POST', 'check', { tuple_key: key('user:anne', 'viewer', 'document:1') }, store.secret);
    expect(bySecret.statusCode).toBe(404);
    expect(bySecret.json()).toMatchObject({ code: 'store_id_not_found' });

    const { token } = await otherOrganization(t);
    const byToken = await store.call('GET', '', undefined, token);
    expect(byToken.statusCode).toBe(404);
    expect(byToken.json()).toMatchObject({ code: 'store_id_not_found' });
    expect((await store.call('GET', '', undefined, await t.token('fga:read'))).statusCode).toBe(200);

    // An unknown store and a malformed one.
    const unknown = await t.app.inject({ method: 'GET', url: '/v1/fga/stores/01ARZ3NDEKTSV4RRFFQ69G5FAV', headers: bearer(await t.token('fga:read')) });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'store_id_not_found' });
    const malformed = await t.app.inject({ method: 'GET', url: '/v1/fga/stores/nope', headers: { authorization: `Bearer ${store.secret}` } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'validation_error', message: expect.stringContaining('params.store_id') });
  });

  it('fga:read checks but cannot write; fga:write writes', async () => {
    const read = await t.token('fga:read');
    expect((await store.call('POST', 'check', { tuple_key: key('user:anne', 'viewer', 'document:1') }, read)).statusCode).toBe(200);
    const refused = await store.call('POST', 'write', { writes: { tuple_keys: [key('user:anne', 'owner', 'document:r')] } }, read);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'forbidden' });
    const write = await t.token('fga:write');
    expect((await store.call('POST', 'write', { writes: { tuple_keys: [key('user:anne', 'owner', 'document:r')] } }, write)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/v1/fga/stores', headers: bearer(await t.token('directory:read')) })).statusCode).toBe(403);
  });

  it('creating or deleting a store is 404 unimplemented', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/fga/stores', headers: { authorization: `Bearer ${store.secret}` }, payload: { name: 'x' } });
    expect(created.statusCode).toBe(404);
    expect(created.json()).toMatchObject({ code: 'unimplemented' });
    expect((await store.call('DELETE', '')).json()).toMatchObject({ code: 'unimplemented' });
  });

  it('shows the store id on the environment', async () => {
    const token = await t.token();
    const projectId = await t.pool.oneFirst(
      sql.type(z.object({ p: z.string() }))`SELECT project_id::text AS p FROM environments WHERE id = ${store.environmentId}`,
    );
    const res = await t.app.inject({ method: 'GET', url: `/v1/tenants/${store.tenantId}/projects/${projectId}/environments`, headers: bearer(token) });
    const environment = (res.json() as { environments: { id: string; fgaStoreId: string }[] }).environments.find((e) => e.id === store.environmentId);
    expect(environment?.fgaStoreId).toBe(store.storeId);
  });
});

describe('validation', () => {
  it('names the field', async () => {
    const res = await store.call('POST', 'check', { tuple_key: { relation: 'viewer', object: 'document:1' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_error', message: expect.stringContaining('body.tuple_key.user') });
    const size = await store.call('POST', 'read', { page_size: 101 });
    expect(size.json()).toMatchObject({ code: 'validation_error', message: expect.stringContaining('body.page_size') });
    const model = await store.call('POST', 'check', {
      tuple_key: key('user:anne', 'viewer', 'document:1'),
      authorization_model_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    });
    expect(model.statusCode).toBe(400);
    expect(model.json()).toMatchObject({ code: 'authorization_model_not_found' });
    const relation = await store.call('POST', 'check', { tuple_key: key('user:anne', 'nope', 'document:1') });
    expect(relation.statusCode).toBe(400);
    expect(relation.json()).toMatchObject({ code: expect.stringMatching(/relation_not_found|validation_error/) });
  });

  it('a model error names line and column, in DSL and in JSON', async () => {
    const dsl = await t.app.inject({
      method: 'POST',
      url: `/v1/fga/stores/${store.storeId}/authorization-models`,
      headers: { authorization: `Bearer ${store.secret}`, 'content-type': 'text/plain' },
      payload: 'model\n  schema 1.1\ntype user\ntype document\n  relations\n    define viewer: [user, team]\n',
    });
    expect(dsl.statusCode).toBe(400);
    expect(dsl.json()).toMatchObject({ code: 'invalid_authorization_model', message: expect.stringMatching(/line 6, column \d+/) });
    const json = await store.call('POST', 'authorization-models', {
      schema_version: '1.1',
      type_definitions: [
        { type: 'user' },
        {
          type: 'document',
          relations: { viewer: { computedUserset: { relation: 'owner' } } },
          metadata: { relations: { viewer: { directly_related_user_types: [] } } },
        },
      ],
    });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ code: 'invalid_authorization_model', message: expect.stringMatching(/line \d+, column \d+/) });
  });
});

describe('writes', () => {
  it('writing a stored tuple or deleting a missing one is a 400 unless told to ignore it', async () => {
    const tuple = key('user:dup', 'owner', 'document:w1');
    expect((await store.call('POST', 'write', { writes: { tuple_keys: [tuple] } })).statusCode).toBe(200);
    const again = await store.call('POST', 'write', { writes: { tuple_keys: [tuple] } });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'write_failed_due_to_invalid_input', message: expect.stringContaining("user: 'user:dup'") });
    expect((await store.call('POST', 'write', { writes: { tuple_keys: [tuple], on_duplicate: 'ignore' } })).statusCode).toBe(200);

    // `ignore` forgives the same tuple only, not one with another condition.
    const conditioned = { ...key('user:cond', 'editor', 'document:w1'), condition: { name: 'in_region' } };
    expect((await store.call('POST', 'write', { writes: { tuple_keys: [conditioned] } })).statusCode).toBe(200);
    const plain = await store.call('POST', 'write', { writes: { tuple_keys: [key('user:cond', 'editor', 'document:w1')], on_duplicate: 'ignore' } });
    expect(plain.json()).toMatchObject({ code: 'write_failed_due_to_invalid_input' });

    const missing = key('user:nobody', 'owner', 'document:w1');
    const deleted = await store.call('POST', 'write', { deletes: { tuple_keys: [missing] } });
    expect(deleted.statusCode).toBe(400);
    expect(deleted.json()).toMatchObject({ code: 'write_failed_due_to_invalid_input', message: expect.stringContaining('does not exist') });
    expect((await store.call('POST', 'write', { deletes: { tuple_keys: [missing], on_missing: 'ignore' } })).statusCode).toBe(200);

    const twice = await store.call('POST', 'write', {
      writes: { tuple_keys: [key('user:x', 'owner', 'document:w2')] },
      deletes: { tuple_keys: [key('user:x', 'owner', 'document:w2')] },
    });
    expect(twice.json()).toMatchObject({ code: 'cannot_allow_duplicate_tuples_in_one_request' });
    expect((await store.call('POST', 'write', {})).json()).toMatchObject({ code: 'invalid_write_input' });
  });

  it('refuses a tuple too long for the index, as a 400', async () => {
    const res = await store.call('POST', 'write', { writes: { tuple_keys: [key(`user:${'😀'.repeat(500)}`, 'owner', `document:${'😀'.repeat(240)}`)] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_tuple' });
  });

  it('refuses a tuple that does not fit the model', async () => {
    const res = await store.call('POST', 'write', { writes: { tuple_keys: [key('group:eng#member', 'owner', 'document:w3')] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_tuple', message: expect.stringContaining('document:w3#owner@group:eng#member') });
  });

  it('takes at most 100 tuples in one request', async () => {
    const keys = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => key(`user:${prefix}${i}`, 'owner', 'document:limit'));
    const over = await store.call('POST', 'write', { writes: { tuple_keys: keys(60, 'a') }, deletes: { tuple_keys: keys(41, 'b') } });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'validation_error', message: expect.stringContaining('at most 100') });
    expect((await store.call('POST', 'write', { writes: { tuple_keys: keys(100, 'c') } })).statusCode).toBe(200);
  });

  it('a failed write leaves no tuple and no change behind', async () => {
    const own = await fgaStore(t);
    await writeDsl(own);
    expect((await own.call('POST', 'write', { writes: { tuple_keys: [key('user:a', 'owner', 'document:t')] } })).statusCode).toBe(200);
    const before = await changeCount(own.environmentId);
    const res = await own.call('POST', 'write', {
      deletes: { tuple_keys: [key('user:a', 'owner', 'document:t')] },
      writes: { tuple_keys: [key('user:b', 'owner', 'document:t'), key('user:c', 'owner', 'document:t')] },
    });
    expect(res.statusCode).toBe(200);
    const failed = await own.call('POST', 'write', {
      deletes: { tuple_keys: [key('user:b', 'owner', 'document:t')] },
      writes: { tuple_keys: [key('user:d', 'owner', 'document:t'), key('user:c', 'owner', 'document:t')] },
    });
    expect(failed.statusCode).toBe(400);
    expect(await changeCount(own.environmentId)).toBe(before + 3);
    const read = await own.call('POST', 'read', { tuple_key: { object: 'document:t' } });
    expect((read.json() as { tuples: { key: { user: string } }[] }).tuples.map((x) => x.key.user)).toEqual(['user:b', 'user:c']);
  });

  it('records an audit entry and an event, the secret as the actor', async () => {
    const own = await fgaStore(t);
    const id = await writeDsl(own);
    await own.call('POST', 'write', { writes: { tuple_keys: [key('user:ev', 'owner', 'document:e')] } });
    await own.call('PUT', `assertions/${id}`, { assertions: [{ tuple_key: key('user:ev', 'viewer', 'document:e'), expectation: true }] });
    const events = await tenantEvents(t, own.tenantId, { environmentId: own.environmentId });
    const fga = events.filter((e) => e.type.startsWith('fga.'));
    expect(fga.map((e) => e.type)).toEqual(['fga.model.written', 'fga.tuples.written', 'fga.assertions.written']);
    expect(fga[1]).toMatchObject({
      actor: { type: 'api_secret', id: own.secretId },
      data: { storeId: own.storeId, writeCount: 1, deleteCount: 0, writes: [key('user:ev', 'owner', 'document:e')] },
    });
    const audit = (await auditEntries(t, { tenantId: own.tenantId })).filter((a) => a.action.startsWith('fga.') && a.environmentId === own.environmentId);
    expect(audit.map((a) => a.action)).toEqual(['fga.model.write', 'fga.tuples.write', 'fga.assertions.write']);
    expect(audit[1]).toMatchObject({ actor: { type: 'api_secret', id: own.secretId }, resource: { type: 'fga_store', id: own.storeId } });
  });

  it('two concurrent writes of the same tuple: one 200, one 400', async () => {
    const body = { writes: { tuple_keys: [key('user:race', 'owner', 'document:race')] } };
    const answers = await Promise.all([store.call('POST', 'write', body), store.call('POST', 'write', body)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
  });
});

describe('reads', () => {
  it('pages read and changes with continuation tokens', async () => {
    const own = await fgaStore(t);
    await writeDsl(own);
    const users = Array.from({ length: 5 }, (_, i) => `user:p${i}`);
    await own.call('POST', 'write', { writes: { tuple_keys: users.map((u) => key(u, 'owner', 'document:p')) } });
    await own.call('POST', 'write', { writes: { tuple_keys: [key('user:q', 'member', 'group:g')] } });

    const seen: string[] = [];
    let token = '';
    for (let page = 0; page < 5; page++) {
      const res = await own.call('POST', 'read', { tuple_key: { object: 'document:' }, page_size: 2, ...(token ? { continuation_token: token } : {}) });
      const body = res.json() as { tuples: { key: { user: string } }[]; continuation_token: string };
      seen.push(...body.tuples.map((x) => x.key.user));
      token = body.continuation_token;
      if (!token) break;
    }
    expect(seen).toEqual(users);
    const byUser = await own.call('POST', 'read', { tuple_key: { user: 'user:q', object: 'group:' } });
    expect((byUser.json() as { tuples: unknown[] }).tuples).toHaveLength(1);
    const userWithoutObject = await own.call('POST', 'read', { tuple_key: { user: 'user:q' } });
    expect(userWithoutObject.json()).toMatchObject({ code: 'validation_error', message: expect.stringContaining('body.tuple_key.object') });
    expect((await own.call('POST', 'read', { continuation_token: 'bogus' })).json()).toMatchObject({ code: 'invalid_continuation_token' });

    await pastCommitHorizon(t);
    const changes = async (query: string) =>
      (await own.call('GET', `changes?${query}`)).json() as { changes: { tuple_key: { user: string } }[]; continuation_token: string };
    const first = await changes('type=document&page_size=3');
    expect(first.changes.map((c) => c.tuple_key.user)).toEqual(users.slice(0, 3));
    const second = await changes(`type=document&page_size=3&continuation_token=${first.continuation_token}`);
    expect(second.changes.map((c) => c.tuple_key.user)).toEqual(users.slice(3));
    expect((await changes(`type=document&continuation_token=${second.continuation_token}`)).changes).toEqual([]);
    expect((await own.call('GET', `changes?type=group&continuation_token=${second.continuation_token}`)).json()).toMatchObject({
      code: 'query_string_type_continuation_token_mismatch',
    });
    expect((await changes('page_size=100')).changes).toHaveLength(6);
    expect((await changes(`start_time=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).changes).toEqual([]);
    expect((await own.call('GET', 'changes?page_size=101')).statusCode).toBe(400);

    const models = await own.call('GET', 'authorization-models?page_size=1');
    expect((models.json() as { authorization_models: unknown[] }).authorization_models).toHaveLength(1);
  });
});

describe('caches', () => {
  it('a write is seen by the next check on the same instance; HIGHER_CONSISTENCY reads past the cache', async () => {
    const check = (user: string, consistency?: string) =>
      store.call('POST', 'check', { tuple_key: key(user, 'viewer', 'document:c'), ...(consistency ? { consistency } : {}) });
    expect((await check('user:cache')).json()).toMatchObject({ allowed: false });
    await store.call('POST', 'write', { writes: { tuple_keys: [key('user:cache', 'owner', 'document:c')] } });
    expect((await check('user:cache')).json()).toMatchObject({ allowed: true });

    // Written behind the API's back: HIGHER_CONSISTENCY sees it at once; the NOTIFY reaches the cache soon after.
    expect((await check('user:direct')).json()).toMatchObject({ allowed: false });
    await t.pool.query(sql.unsafe`
      INSERT INTO fga_tuples (environment_id, object_type, object_id, relation, user_type, user_id)
      VALUES (${store.environmentId}, 'document', 'c', 'owner', 'user', 'direct')`);
    expect((await check('user:direct', 'HIGHER_CONSISTENCY')).json()).toMatchObject({ allowed: true });
    await expect.poll(async () => (await check('user:direct')).json()).toMatchObject({ allowed: true });
  });

  it('a repeated check is a cache hit until a write or a new model changes its answer', async () => {
    const own = await fgaStore(t);
    const first = await writeDsl(own, 'model\n  schema 1.1\ntype user\ntype document\n  relations\n    define viewer: [user]\n');
    const tuple = key('user:h', 'viewer', 'document:h');
    await own.call('POST', 'write', { writes: { tuple_keys: [tuple] } });
    const ask = async (modelId?: string) =>
      ((await own.call('POST', 'check', { tuple_key: tuple, ...(modelId ? { authorization_model_id: modelId } : {}) })).json() as { allowed: boolean }).allowed;
    const hits = async () => Number(/iam_decision_cache_lookups_total\{cache="fga_check",result="hit"\} (\d+)/.exec(await t.app.metrics.render())?.[1] ?? 0);

    // The writes' NOTIFYs may still drop this instance's caches once each (a miss after each), so of 10 asks at least 8 hit.
    const before = await hits();
    for (let i = 0; i < 10; i++) expect(await ask(i % 2 ? first : undefined)).toBe(true);
    expect(await hits()).toBeGreaterThanOrEqual(before + 8);

    await own.call('POST', 'write', { deletes: { tuple_keys: [tuple] } });
    expect(await ask()).toBe(false);
    expect(await ask(first)).toBe(false);
    await writeDsl(own, 'model\n  schema 1.1\ntype user\ntype document\n  relations\n    define reader: [user]\n    define viewer: reader\n');
    expect(await ask()).toBe(false);
    const written = await own.call('POST', 'write', { writes: { tuple_keys: [key('user:h', 'reader', 'document:h')] } });
    expect(written.statusCode, written.body).toBe(200);
    expect(await ask()).toBe(true);
    expect(await ask(first)).toBe(false);
  });

  it('answers from the model asked for', async () => {
    const own = await fgaStore(t);
    const first = await writeDsl(own, 'model\n  schema 1.1\ntype user\ntype document\n  relations\n    define viewer: [user]\n');
    await own.call('POST', 'write', { writes: { tuple_keys: [key('user:m', 'viewer', 'document:m')] } });
    await writeDsl(own, 'model\n  schema 1.1\ntype user\ntype document\n  relations\n    define reader: [user]\n    define viewer: reader\n');
    expect((await own.call('POST', 'check', { tuple_key: key('user:m', 'viewer', 'document:m') })).json()).toMatchObject({ allowed: false });
    expect((await own.call('POST', 'check', { tuple_key: key('user:m', 'viewer', 'document:m'), authorization_model_id: first })).json()).toMatchObject({
      allowed: true,
    });
  });
});

describe('queries', () => {
  it('answers check with a trace, batch check with per-item errors, expand, list objects and users', async () => {
    await store.call('POST', 'write', {
      writes: {
        tuple_keys: [key('user:q1', 'owner', 'document:q'), { ...key('user:q2', 'editor', 'document:q'), condition: { name: 'in_region' } }],
      },
    });
    const traced = await store.call('POST', 'check', { tuple_key: key('user:q1', 'viewer', 'document:q'), trace: true, authorization_model_id: modelId });
    expect(traced.json()).toMatchObject({ allowed: true, resolution: expect.stringContaining('user:q1') });
    const missing = await store.call('POST', 'check', { tuple_key: key('user:q2', 'editor', 'document:q') });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'condition_missing_parameters' });
    const batch = await store.call('POST', 'batch-check', {
      checks: [
        { tuple_key: key('user:q2', 'editor', 'document:q'), context: { region: 'eu' }, correlation_id: '1' },
        { tuple_key: key('user:q2', 'editor', 'document:q'), correlation_id: '2' },
      ],
    });
    expect(batch.json()).toEqual({
      result: { '1': { allowed: true }, '2': { error: { input_error: 'condition_missing_parameters', message: expect.any(String) } } },
    });
    const duplicateIds = await store.call('POST', 'batch-check', {
      checks: [
        { tuple_key: key('user:q1', 'owner', 'document:q'), correlation_id: 'x' },
        { tuple_key: key('user:q1', 'owner', 'document:q'), correlation_id: 'x' },
      ],
    });
    expect(duplicateIds.json()).toMatchObject({ code: 'validation_error', message: expect.stringContaining('body.checks.1.correlation_id') });
    const expanded = await store.call('POST', 'expand', { tuple_key: { relation: 'owner', object: 'document:q' } });
    expect(expanded.json()).toMatchObject({ tree: { root: { name: 'document:q#owner', leaf: { users: { users: ['user:q1'] } } } } });
    const objects = await store.call('POST', 'list-objects', { type: 'document', relation: 'owner', user: 'user:q1' });
    expect(objects.json()).toEqual({ objects: ['document:q'] });
    const users = await store.call('POST', 'list-users', { object: { type: 'document', id: 'q' }, relation: 'owner', user_filters: [{ type: 'user' }] });
    expect(users.json()).toEqual({ users: [{ object: { type: 'user', id: 'q1' } }] });
    const streamed = await store.call('POST', 'streamed-list-objects', { type: 'document', relation: 'owner', user: 'user:q1' });
    expect(streamed.headers['content-type']).toMatch(/application\/x-ndjson/);
    expect(streamed.body).toBe('{"result":{"object":"document:q"}}\n');
    const none = await store.call('POST', 'streamed-list-objects', { type: 'document', relation: 'owner', user: 'user:nobody' });
    expect([none.statusCode, none.body]).toEqual([200, '']);
    const unknown = await store.call('POST', 'streamed-list-objects', { type: 'nope', relation: 'owner', user: 'user:q1' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: expect.stringMatching(/type_not_found|validation_error/) });
  });
});

describe('hostile bodies', () => {
  it.each([
    ['a null byte', JSON.stringify({ tuple_key: key('user:\u0000', 'viewer', 'document:1') })],
    ['deep nesting', `{"tuple_key":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`],
    ['a huge body', JSON.stringify({ tuple_key: key(`user:${'x'.repeat(2_000_000)}`, 'viewer', 'document:1') })],
    ['not JSON', '{"tuple_key":'],
    ['an array', '[1,2,3]'],
    [
      'a huge context',
      JSON.stringify({ tuple_key: key('user:a', 'viewer', 'document:1'), context: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])) }),
    ],
  ])('%s is a 4xx', async (_what, payload) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/fga/stores/${store.storeId}/check`,
      headers: { authorization: `Bearer ${store.secret}`, 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });

  it('fuzzed tuple keys are 4xx', async () => {
    const samples = ['', ':', 'user:', ':x', 'a:b:c', 'user:#', 'user:x#', 'doc ument:1', 'x'.repeat(600), 'user:*#rel', '💥:💥', 'user:a b'];
    for (const user of samples) {
      for (const object of samples) {
        const res = await store.call('POST', 'check', { tuple_key: key(user, 'viewer', object) });
        expect(res.statusCode, `${user} ${object}: ${res.body}`).toBeLessThan(500);
        const write = await store.call('POST', 'write', { writes: { tuple_keys: [key(user, 'viewer', object)] } });
        expect(write.statusCode, `${user} ${object}: ${write.body}`).toBeLessThan(500);
      }
    }
  });
});
