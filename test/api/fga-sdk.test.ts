// OpenFGA's own SDK (@openfga/sdk, with its id validation on) does the whole round trip against /v1/fga: stores,
// models, tuples with a condition, check, batch check, list objects and users, expand, read, changes, assertions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import {
  ClientWriteRequestOnDuplicateWrites,
  ClientWriteRequestOnMissingDeletes,
  CredentialsMethod,
  FgaApiAuthenticationError,
  FgaApiNotFoundError,
  FgaApiValidationError,
  OpenFgaClient,
} from '@openfga/sdk';
import { parseModelDsl } from '../../lib/fga/model.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pastCommitHorizon } from '../helpers/events.ts';
import { DOCS_MODEL, fgaStore, sdkClient, type FgaStore } from '../helpers/fga.ts';

let t: TestApp;
let base: string;
let store: FgaStore;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  store = await fgaStore(t);
});
afterAll(() => t?.close());

const modelJson: Partial<Awaited<ReturnType<typeof parseModelDsl>>> = await parseModelDsl(DOCS_MODEL);
delete modelJson.id;

describe('OpenFGA SDK with an environment API secret', () => {
  it('does the whole round trip', async () => {
    const client = sdkClient(base, store.storeId, store.secret);

    const stores = await client.listStores();
    expect(stores.stores).toEqual([expect.objectContaining({ id: store.storeId })]);
    expect(await client.getStore()).toMatchObject({ id: store.storeId, name: expect.stringContaining(' / ') });

    const { authorization_model_id: modelId } = await client.writeAuthorizationModel(modelJson as never);
    expect(modelId).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    const read = await client.readAuthorizationModel({ authorizationModelId: modelId });
    expect(read.authorization_model).toMatchObject({ id: modelId, schema_version: '1.1' });
    expect(read.authorization_model?.type_definitions.map((d) => d.type)).toEqual(['user', 'group', 'folder', 'document']);
    expect((await client.readLatestAuthorizationModel()).authorization_model?.id).toBe(modelId);
    expect((await client.readAuthorizationModels()).authorization_models.map((m) => m.id)).toEqual([modelId]);

    await client.write({
      writes: [
        { user: 'user:anne', relation: 'owner', object: 'document:plan' },
        { user: 'user:bob', relation: 'editor', object: 'document:plan', condition: { name: 'in_region', context: {} } },
        { user: 'group:eng#member', relation: 'viewer', object: 'folder:x' },
        { user: 'user:carl', relation: 'member', object: 'group:eng' },
        { user: 'folder:x', relation: 'parent', object: 'document:plan' },
        { user: 'user:*', relation: 'viewer', object: 'document:public' },
      ],
    });

    const pinned = sdkClient(base, store.storeId, store.secret, modelId);
    expect((await pinned.check({ user: 'user:anne', relation: 'viewer', object: 'document:plan' })).allowed).toBe(true);
    expect((await pinned.check({ user: 'user:carl', relation: 'viewer', object: 'document:plan' })).allowed).toBe(true);
    expect((await pinned.check({ user: 'user:dora', relation: 'viewer', object: 'document:plan' })).allowed).toBe(false);
    expect((await pinned.check({ user: 'user:bob', relation: 'editor', object: 'document:plan', context: { region: 'eu' } })).allowed).toBe(true);
    expect((await pinned.check({ user: 'user:bob', relation: 'editor', object: 'document:plan', context: { region: 'us' } })).allowed).toBe(false);
    expect(
      (
        await pinned.check({
          user: 'user:dora',
          relation: 'viewer',
          object: 'document:plan',
          contextualTuples: [{ user: 'user:dora', relation: 'member', object: 'group:eng' }],
        })
      ).allowed,
    ).toBe(true);

    const batch = await pinned.batchCheck({
      checks: [
        { user: 'user:anne', relation: 'owner', object: 'document:plan', correlationId: 'a' },
        { user: 'user:zed', relation: 'viewer', object: 'document:public', correlationId: 'b' },
        { user: 'user:zed', relation: 'owner', object: 'document:public', correlationId: 'c' },
      ],
    });
    expect(Object.fromEntries(batch.result.map((r) => [r.correlationId, r.allowed]))).toEqual({ a: true, b: true, c: false });

    const objects = await pinned.listObjects({ user: 'user:carl', relation: 'viewer', type: 'document' });
    expect(objects.objects.sort()).toEqual(['document:plan', 'document:public']);
    const streamed: string[] = [];
    for await (const o of pinned.streamedListObjects({ user: 'user:anne', relation: 'viewer', type: 'document' })) streamed.push(o.object);
    expect(streamed.sort()).toEqual(['document:plan', 'document:public']);

    const users = await pinned.listUsers({ object: { type: 'document', id: 'plan' }, relation: 'owner', user_filters: [{ type: 'user' }] });
    expect(users.users).toEqual([{ object: { type: 'user', id: 'anne' } }]);

    const expanded = await pinned.expand({ relation: 'owner', object: 'document:plan' });
    expect(expanded.tree?.root?.name).toBe('document:plan#owner');

    const tuples = await pinned.read({ object: 'document:plan' });
    expect(tuples.tuples.map((x) => x.key.user).sort()).toEqual(['folder:x', 'user:anne', 'user:bob']);
    expect(tuples.tuples.find((x) => x.key.user === 'user:bob')?.key.condition).toEqual({ name: 'in_region' });
    const all = await pinned.read({}, { pageSize: 4 });
    expect(all.tuples).toHaveLength(4);
    const rest = await pinned.read({}, { pageSize: 4, continuationToken: all.continuation_token });
    expect(rest.tuples).toHaveLength(2);
    expect(rest.continuation_token).toBe('');

    await pinned.write({ deletes: [{ user: 'user:anne', relation: 'owner', object: 'document:plan' }] });
    await pastCommitHorizon(t);
    const first = await pinned.readChanges({ type: 'document' }, { pageSize: 3 });
    expect(first.changes.map((c) => c.operation)).toEqual(['TUPLE_OPERATION_WRITE', 'TUPLE_OPERATION_WRITE', 'TUPLE_OPERATION_WRITE']);
    const next = await pinned.readChanges({ type: 'document' }, { pageSize: 3, continuationToken: first.continuation_token });
    expect(next.changes.map((c) => [c.operation, c.tuple_key.user])).toEqual([
      ['TUPLE_OPERATION_WRITE', 'user:*'],
      ['TUPLE_OPERATION_DELETE', 'user:anne'],
    ]);
    const none = await pinned.readChanges({ type: 'document' }, { pageSize: 3, continuationToken: next.continuation_token });
    expect(none.changes).toEqual([]);
    expect(none.continuation_token).toBe(next.continuation_token);

    await pinned.writeAssertions([
      { user: 'user:carl', relation: 'viewer', object: 'document:plan', expectation: true },
      { user: 'user:dora', relation: 'viewer', object: 'document:plan', expectation: false },
    ]);
    const assertions = await pinned.readAssertions();
    expect(assertions.authorization_model_id).toBe(modelId);
    expect(assertions.assertions?.map((a) => [a.tuple_key.user, a.expectation])).toEqual([
      ['user:carl', true],
      ['user:dora', false],
    ]);
  });

  it('answers errors the SDK understands', async () => {
    const own = await fgaStore(t);
    const client = sdkClient(base, own.storeId, own.secret);
    await expect(client.write({ writes: [{ user: 'user:carl', relation: 'member', object: 'group:eng' }] })).rejects.toMatchObject({
      apiErrorCode: 'latest_authorization_model_not_found',
    });
    await client.writeAuthorizationModel(modelJson as never);
    await client.write({ writes: [{ user: 'user:carl', relation: 'member', object: 'group:eng' }] });
    const duplicate = client.write({ writes: [{ user: 'user:carl', relation: 'member', object: 'group:eng' }] });
    await expect(duplicate).rejects.toBeInstanceOf(FgaApiValidationError);
    await expect(duplicate).rejects.toMatchObject({ apiErrorCode: 'write_failed_due_to_invalid_input' });
    await client.write(
      { writes: [{ user: 'user:carl', relation: 'member', object: 'group:eng' }] },
      { conflict: { onDuplicateWrites: ClientWriteRequestOnDuplicateWrites.Ignore } },
    );
    await client.write(
      { deletes: [{ user: 'user:nobody', relation: 'member', object: 'group:eng' }] },
      { conflict: { onMissingDeletes: ClientWriteRequestOnMissingDeletes.Ignore } },
    );
    await expect(client.createStore({ name: 'x' })).rejects.toBeInstanceOf(FgaApiNotFoundError);
    await expect(sdkClient(base, store.storeId, own.secret).getStore()).rejects.toBeInstanceOf(FgaApiNotFoundError);
    const unauthenticated = new OpenFgaClient({ apiUrl: `${base}/v1/fga`, storeId: store.storeId, retryParams: { maxRetry: 0 } });
    await expect(unauthenticated.getStore()).rejects.toBeInstanceOf(FgaApiAuthenticationError);
  });
});

describe('OpenFGA SDK with a management token', () => {
  it('reads stores, writes a model and tuples, and checks', async () => {
    const own = await fgaStore(t);
    const token = await t.token('fga:write');
    const client = new OpenFgaClient({
      apiUrl: `${base}/v1/fga`,
      storeId: own.storeId,
      credentials: { method: CredentialsMethod.ApiToken, config: { token } },
      retryParams: { maxRetry: 0 },
    });
    const seen: string[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await client.listStores({ pageSize: 2, ...(continuationToken ? { continuationToken } : {}) });
      expect(page.stores.length).toBeLessThanOrEqual(2);
      seen.push(...page.stores.map((s) => s.id));
      continuationToken = page.continuation_token || undefined;
    } while (continuationToken);
    expect(seen).toContain(own.storeId);
    expect(new Set(seen).size).toBe(seen.length);
    const named = await client.getStore();
    expect((await client.listStores({ name: named.name })).stores.map((s) => s.id)).toContain(own.storeId);
    await client.writeAuthorizationModel(modelJson as never);
    await client.write({
      writes: [
        { user: 'user:erin', relation: 'viewer', object: 'folder:x' },
        { user: 'folder:x', relation: 'parent', object: 'document:plan' },
      ],
    });
    expect((await client.check({ user: 'user:erin', relation: 'viewer', object: 'document:plan' })).allowed).toBe(true);
    expect((await client.listObjects({ user: 'user:erin', relation: 'viewer', type: 'document' })).objects).toEqual(['document:plan']);
  });
});
