// An environment of its own for an RBAC test, a caller of its /rbac API, and users and groups of its directory.
import { bearer, type TestApp } from './app.ts';
import { newEnvironments } from './fixtures.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export async function rbacEnvironment(t: TestApp, token: string) {
  const environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  const base = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentId}/rbac`;
  /** Calls `<base><path>` with the token; the body parsed when there is one. */
  const call = async (method: Method, path: string, payload?: object, query?: Record<string, string>) => {
    const res = await t.app.inject({ method, url: `${base}${path}`, headers: bearer(token), ...(payload ? { payload } : {}), ...(query ? { query } : {}) });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  };
  /** A directory user or group of the environment, made through the directory API; its id. */
  const directory = async (kind: 'users' | 'groups') => {
    const url = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentId}/directory/${kind}`;
    const payload = kind === 'users' ? { userName: `user-${crypto.randomUUID()}` } : { name: `group-${crypto.randomUUID()}` };
    const res = await t.app.inject({ method: 'POST', url, headers: bearer(token), payload });
    if (res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return (res.json() as { user?: { id: string }; group?: { id: string } })[kind === 'users' ? 'user' : 'group']!.id;
  };
  return { environmentId, base, call, newUser: () => directory('users'), newGroup: () => directory('groups') };
}

export type RbacEnvironment = Awaited<ReturnType<typeof rbacEnvironment>>;
