// A small document model in a new project's environment, its API secret, and a caller of /access/v1.
import type { TestApp } from './app.ts';
import { createApiSecret, seedModel, type ModelSeed } from './access-model.ts';
import { newEnvironments } from './fixtures.ts';

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
