// An environment for elevate tests: a small model (alice requests, bob and dave approve, an admin role that may
// delete documents, an oncall group), an AuthZEN secret, and a caller of its /elevate API.
import { bearer, startTestApp, type TestApp } from './app.ts';
import { authzenEnvironment } from './authzen.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export const ELEVATE_MODEL = {
  users: [{ userName: 'alice', attributes: { level: 2 } }, { userName: 'bob' }, { userName: 'dave' }, { userName: 'erin' }],
  groups: [{ name: 'oncall' }, { name: 'admins' }, { name: 'approvers' }],
  memberships: [
    ['alice', 'oncall'],
    ['dave', 'approvers'],
  ] as [string, string][],
  resourceTypes: [{ key: 'document', actions: ['read', 'delete'] }],
  resources: [
    { type: 'document', id: 'doc-1' },
    { type: 'document', id: 'doc-2' },
  ],
  roles: [
    { key: 'admin', permissions: [{ type: 'document', action: 'delete' }] },
    { key: 'reader', permissions: [{ type: 'document', action: 'read' }] },
  ],
  assignments: [{ role: 'reader', group: 'admins' }],
};

/** The elevate model in a new environment, or in `environment` when given. */
export async function elevateEnvironment(t: TestApp, token: string, environment?: { tenantId: string; environmentId: string }) {
  const pdp = await authzenEnvironment(t, ELEVATE_MODEL, environment);
  const base = `/v1/tenants/${pdp.tenantId}/environments/${pdp.environmentId}/elevate`;
  const call = async (method: Method, path: string, payload?: object, as?: string, query?: Record<string, string>) => {
    const res = await t.app.inject({
      method,
      url: `${base}${path}`,
      headers: bearer(as ?? token),
      ...(payload ? { payload } : {}),
      ...(query ? { query } : {}),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  };
  const { users, groups, roles } = pdp.ids;
  /** A policy granting `admin` to the oncall group's members, approved by bob (or as `overrides` say); its id. */
  const policy = async (overrides: Record<string, unknown> = {}) => {
    const res = await call('POST', '/policies', {
      name: `policy-${crypto.randomUUID().slice(0, 8)}`,
      target: { type: 'role', roleId: roles.admin },
      eligible: { groupIds: [groups.oncall] },
      approvers: { userIds: [users.bob] },
      maxDurationSeconds: 3600,
      ...overrides,
    });
    if (res.status !== 201) throw new Error(`policy: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.policy.id as string;
  };
  /** Whether alice may delete `doc`, with the reason. */
  const mayDelete = async (doc = 'doc-1', userName = 'alice') => {
    const res = await pdp.post('evaluation', {
      subject: { type: 'user', id: users[userName] },
      action: { name: 'delete' },
      resource: { type: 'document', id: doc },
      options: { explain: true },
    });
    return res.body as { decision: boolean; context: { reason: Record<string, unknown> } };
  };
  return { ...pdp, base, call, policy, mayDelete, users, groups, roles };
}

/** A test app with an elevate environment of its own: `beforeAll(async () => ({ t, env } = await startElevateApp()))`. */
export async function startElevateApp(): Promise<{ t: TestApp; env: Awaited<ReturnType<typeof elevateEnvironment>> }> {
  const t = await startTestApp();
  return { t, env: await elevateEnvironment(t, await t.token()) };
}
