// Fixtures made through the real query layer, for what the API cannot create yet.
import { generateCredential, displayPrefix, hashSecret } from '../../lib/crypto.ts';
import { createOrganizationQueries } from '../../db/organizations/organizations/queries.ts';
import { createServiceAccountQueries } from '../../db/identity/service-accounts/queries.ts';
import { bearer, clientCredentialsToken, type TestApp } from './app.ts';

/** Another organization with its own service account holding `*`, and a token of it. */
export async function otherOrganization(t: TestApp) {
  const organizationId = await createOrganizationQueries(t.pool).insertOrganization({ name: `Other ${Math.random()}` });
  const clientSecret = generateCredential('adsa');
  const sa = await createServiceAccountQueries(t.pool).insertServiceAccount({
    organizationId,
    clientId: `other-${organizationId}`,
    name: 'other admin',
    description: null,
    secretHash: hashSecret(clientSecret),
    secretPrefix: displayPrefix(clientSecret),
    scopes: ['*'],
  });
  return { organizationId, serviceAccount: sa, token: await clientCredentialsToken(t.app, sa.clientId, clientSecret) };
}

/** The two environments (development, production) of a new project: a clean slate for a test. */
export async function newEnvironments(t: TestApp, token?: string): Promise<{ tenantId: string; environmentIds: string[] }> {
  const { tenantId } = t.credentials;
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/projects`,
    headers: bearer(token ?? (await t.token())),
    payload: { name: `Project ${crypto.randomUUID().slice(0, 8)}` },
  });
  if (res.statusCode !== 201) throw new Error(`project: ${res.statusCode} ${res.body}`);
  return { tenantId, environmentIds: (res.json() as { environments: { id: string }[] }).environments.map((e) => e.id) };
}
