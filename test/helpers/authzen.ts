// A small document model in a new project's environment, its API secret, and a caller of /access/v1.
import { bearer, type TestApp } from './app.ts';
import { createApiSecret, seedModel, type ModelSeed } from './access-model.ts';

export const DOCUMENTS: ModelSeed = {
  users: [
    { userName: 'alice', externalId: 'ext-alice', emails: ['alice@example.com'], attributes: { department: 'eng' } },
    { userName: 'bob', emails: ['bob@example.com'] },
    { userName: 'carol', emails: ['carol@example.com'], active: false },
  ],
  groups: [{ name: 'editors' }],
  memberships: [['bob', 'editors']],
  resourceTypes: [{ key: 'document', actions: ['read', 'write', 'delete'] }],
  resources: [
    { type: 'document', id: 'doc-1', attributes: { owner: 'alice' } },
    { type: 'document', id: 'doc-2', attributes: { owner: 'bob' } },
    { type: 'document', id: 'doc-3', attributes: { owner: 'carol' } },
  ],
  roles: [
    { key: 'viewer', permissions: [{ type: 'document', action: 'read' }] },
    { key: 'editor', permissions: [{ type: 'document', action: 'write' }], inherits: ['viewer'] },
    { key: 'owner', permissions: [{ type: 'document', action: 'delete', condition: 'resource.properties.owner == subject.properties.userName' }] },
  ],
  assignments: [
    { role: 'viewer', user: 'alice' },
    { role: 'editor', group: 'editors', resources: [{ type: 'document', id: 'doc-2' }] },
    { role: 'owner', user: 'alice' },
  ],
};

/** The two environments (development, production) of a new project. */
export async function newEnvironments(t: TestApp): Promise<{ tenantId: string; environmentIds: string[] }> {
  const { tenantId } = t.credentials;
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/projects`,
    headers: bearer(await t.token()),
    payload: { name: `AuthZEN ${crypto.randomUUID().slice(0, 8)}` },
  });
  if (res.statusCode !== 201) throw new Error(`project: ${res.statusCode} ${res.body}`);
  return { tenantId, environmentIds: (res.json() as { environments: { id: string }[] }).environments.map((e) => e.id) };
}

export type Pdp = Awaited<ReturnType<typeof authzenEnvironment>>;

/** An environment seeded with `seed`, an AuthZEN secret of it, and `post(path, body, headers?)` to /access/v1. */
export async function authzenEnvironment(t: TestApp, seed: ModelSeed = DOCUMENTS, environment?: { tenantId: string; environmentId: string }) {
  const { tenantId, environmentIds } = environment ? { tenantId: environment.tenantId, environmentIds: [environment.environmentId] } : await newEnvironments(t);
  const environmentId = environmentIds[0]!;
  const ids = await seedModel(t.pool, environmentId, seed);
  const { secret, id: secretId } = await createApiSecret(t.pool, environmentId);
  const post = async (path: string, payload: unknown, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/access/v1/${path}`,
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    return { status: res.statusCode, body: res.body ? (res.json() as Record<string, unknown>) : undefined, headers: res.headers };
  };
  return { tenantId, environmentId, ids, secret, secretId, post };
}
