// An environment of its own for an RBAC test, and a caller of its /rbac API.
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
  return { environmentId, base, call };
}

export type RbacEnvironment = Awaited<ReturnType<typeof rbacEnvironment>>;
