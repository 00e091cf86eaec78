// SCIM as a provisioning client speaks it: a token of a fresh environment, and requests with SCIM media types.
import { bearer, startTestApp, type TestApp } from './app.ts';
import { newEnvironments } from './fixtures.ts';

export const SCIM = '/v1/scim/v2';
export const HRIS = '/v1/hris/v1';
export const EMPLOYEE = 'urn:iam-service:params:scim:schemas:hris:1.0:Employee';
export const DEPARTMENT = 'urn:iam-service:params:scim:schemas:hris:1.0:Department';
export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export interface ScimEnvironment {
  tenantId: string;
  environmentId: string;
  tokenId: string;
  token: string;
  /** The management API base of the environment. */
  base: string;
}

/** A fresh environment with a provisioning token of `kind`. */
export async function scimEnvironment(t: TestApp, kind: 'scim' | 'hris' = 'scim'): Promise<ScimEnvironment> {
  const { tenantId, environmentIds } = await newEnvironments(t);
  const environmentId = environmentIds[0]!;
  const base = `/v1/tenants/${tenantId}/environments/${environmentId}`;
  const res = await t.app.inject({
    method: 'POST',
    url: `${base}/provisioning-tokens`,
    headers: bearer(await t.token()),
    payload: { name: `IdP ${kind}`, kind },
  });
  if (res.statusCode !== 201) throw new Error(`provisioning token: ${res.statusCode} ${res.body}`);
  const body = res.json() as { provisioningToken: { id: string }; token: string };
  return { tenantId, environmentId, tokenId: body.provisioningToken.id, token: body.token, base };
}

export interface ScimResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

/** A SCIM request: JSON bodies go as application/scim+json unless `contentType` says otherwise. */
export async function scim(
  t: TestApp,
  token: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  mount = SCIM,
): Promise<ScimResponse> {
  const res = await t.app.inject({
    method,
    url: `${mount}${path}`,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/scim+json; charset=utf-8' }),
      ...headers,
    },
    ...(body !== undefined && { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
}

/** An HRIS request (/v1/hris/v1), with SCIM media types. */
export const hris = (t: TestApp, token: string, method: Parameters<typeof scim>[2], path: string, body?: unknown, headers: Record<string, string> = {}) =>
  scim(t, token, method, path, body, headers, HRIS);

/** A SCIM User as Entra ID creates one. */
export const entraUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER, ENTERPRISE],
  externalId: userName.split('@')[0],
  userName,
  active: true,
  displayName: 'Test User',
  emails: [{ primary: true, type: 'work', value: userName }],
  name: { formatted: 'Test User', familyName: 'User', givenName: 'Test' },
  ...extra,
});

export const patch = (...Operations: Record<string, unknown>[]) => ({ schemas: [PATCH_OP], Operations });

/** A test app with a SCIM environment of its own: `beforeAll(async () => ({ t, env } = await startScimApp()))`. */
export async function startScimApp(): Promise<{ t: TestApp; env: ScimEnvironment }> {
  const t = await startTestApp();
  return { t, env: await scimEnvironment(t) };
}
