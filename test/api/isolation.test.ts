// Every operation of the OpenAPI document, called by a principal of another organization holding `*` on real
// resources of this one: each is 404 naming the tenant or organization it addresses, unless it is in ALLOWLIST
// (operations that address no tenant or organization). A new route is covered without anyone remembering to: it
// either answers 404 here or is listed below with its reason.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryQueries } from '../../db/events/webhooks/deliveries.ts';
import { createMfaService } from '../../api/mfa/index.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { storeIdOf } from '../../lib/fga/store-id.ts';

const SCIM_REASON = 'SCIM: the provisioning token selects the environment (tested in test/api/scim-*.test.ts)';
const HRIS_REASON = 'HRIS: the provisioning token selects the environment (tested in test/api/hris-*.test.ts)';
const WIDGET_API_REASON = 'widget API: the widget token selects the environment, user and organization (tested in test/api/widgets.test.ts)';
const ALLOWLIST: Record<string, string> = {
  ...Object.fromEntries(
    [
      'GET /v1/widgets/profile',
      'PATCH /v1/widgets/profile',
      'GET /v1/widgets/sessions',
      'DELETE /v1/widgets/sessions/{sessionId}',
      'GET /v1/widgets/passkeys',
      'DELETE /v1/widgets/passkeys/{passkeyId}',
      'GET /v1/widgets/mfa-factors',
      'DELETE /v1/widgets/mfa-factors/{factorId}',
      'GET /v1/widgets/members',
      'GET /v1/widgets/invitations',
      'POST /v1/widgets/invitations',
      'POST /v1/widgets/invitations/{invitationId}/revoke',
      'GET /v1/widgets/api-keys',
      'POST /v1/widgets/api-keys',
      'POST /v1/widgets/api-keys/{keyId}/revoke',
      'GET /v1/widgets/audit-logs',
    ].map((op) => [op, WIDGET_API_REASON]),
  ),
  'GET /v1/health': 'public',
  'GET /v1/health/live': 'public',
  'GET /v1/health/ready': 'public',
  'GET /metrics': "the deployment's metrics: counts and timings, no tenant data (scope metrics:read)",
  'GET /.well-known/jwks.json': 'public',
  'GET /v1/openapi': 'public',
  'POST /v1/oauth/token': 'public: client credentials authenticate themselves',
  'GET /v1/userinfo': "the caller's own user",
  'GET /v1/tenants': 'lists what the caller reaches',
  'POST /v1/tenants': "creates a tenant in the caller's own organization (another one in the body is a 400)",
  'POST /v1/tenants/join': 'the invitation code is the authorization',
  'GET /v1/organizations': "lists the caller's organizations",
  'POST /v1/organizations': 'creates an organization over tenants the caller reaches (others in the body are a 400)',
  'POST /v1/organizations/invitations/accept': 'the invitation token is the authorization',
  'POST /v1/organizations/join': 'the invitation code is the authorization',
  'GET /v1/personal-access-tokens': "the caller's own tokens",
  'POST /v1/personal-access-tokens': "the caller's own tokens",
  'POST /v1/personal-access-tokens/{tokenId}/revoke': "the caller's own tokens (another's is 404 among them)",
  'GET /v1/signing-keys': 'service-wide token signing keys',
  'POST /v1/signing-keys/rotate': 'service-wide token signing keys',
  'GET /v1/event-types': 'the event catalog',
  'GET /v1/process-outbox': 'service-wide process outbox, operators only',
  'POST /v1/process-outbox/{entryId}/retry': 'service-wide process outbox, operators only',
  'POST /v1/integrations/slack/interactivity/{channelId}':
    "Slack's signature (the channel's signing secret) authenticates it; tested in test/api/elevate-slack.test.ts",
  'POST /v1/hooks/email/postmark/{environment}':
    "Postmark's Basic auth (the environment's Postmark server token) authenticates it; tested in test/api/messages-delivery.test.ts",
  'POST /v1/billing/stripe/{environment}/webhook':
    "Stripe's signature (the stripe add-on's webhook secret) authenticates it; tested in test/api/billing.test.ts",
  'POST /access/v1/evaluation': 'AuthZEN: the environment API secret selects the environment (tested in test/api/authzen-*.test.ts)',
  'POST /access/v1/evaluations': 'AuthZEN: the environment API secret selects the environment (tested in test/api/authzen-*.test.ts)',
  'POST /access/v1/search/subject': 'AuthZEN: the environment API secret selects the environment (tested in test/api/authzen-*.test.ts)',
  'POST /access/v1/search/resource': 'AuthZEN: the environment API secret selects the environment (tested in test/api/authzen-*.test.ts)',
  'POST /access/v1/search/action': 'AuthZEN: the environment API secret selects the environment (tested in test/api/authzen-*.test.ts)',
  'GET /.well-known/authzen-configuration': 'public: AuthZEN PDP metadata of the whole service',
  'POST /v1/oauth/introspect': 'authenticates its caller itself; a token of an unreachable environment is {active:false} (test/api/oauth-introspect.test.ts)',
  'POST /v1/mcp/events': 'MCP runtime: the environment API secret selects the environment (tested in test/api/mcp-events.test.ts)',
  'GET /v1/oidc/{issuerEnvironmentId}/protected-resources/{entryId}': 'public: RFC 9728 metadata of an MCP server (test/api/oidc-mcp-metadata.test.ts)',
  'GET /.well-known/oauth-protected-resource/v1/oidc/{issuerEnvironmentId}/protected-resources/{entryId}':
    'public: RFC 9728 metadata of an MCP server (test/api/oidc-mcp-metadata.test.ts)',
  'GET /v1/fga/stores': 'lists the stores of the environments the caller reaches',
  'GET /v1/mcp/trust-store/resolve': 'trust-store runtime: the environment API secret selects the environment (tested in test/api/trust-store-resolve.test.ts)',
  'GET /v1/scim/v2/ServiceProviderConfig': SCIM_REASON,
  'GET /v1/scim/v2/ResourceTypes': SCIM_REASON,
  'GET /v1/scim/v2/ResourceTypes/{id}': SCIM_REASON,
  'GET /v1/scim/v2/Schemas': SCIM_REASON,
  'GET /v1/scim/v2/Schemas/{id}': SCIM_REASON,
  'GET /v1/scim/v2/Users': SCIM_REASON,
  'POST /v1/scim/v2/Users': SCIM_REASON,
  'GET /v1/scim/v2/Users/{id}': SCIM_REASON,
  'PUT /v1/scim/v2/Users/{id}': SCIM_REASON,
  'PATCH /v1/scim/v2/Users/{id}': SCIM_REASON,
  'DELETE /v1/scim/v2/Users/{id}': SCIM_REASON,
  'GET /v1/scim/v2/Groups': SCIM_REASON,
  'POST /v1/scim/v2/Groups': SCIM_REASON,
  'GET /v1/scim/v2/Groups/{id}': SCIM_REASON,
  'PUT /v1/scim/v2/Groups/{id}': SCIM_REASON,
  'PATCH /v1/scim/v2/Groups/{id}': SCIM_REASON,
  'DELETE /v1/scim/v2/Groups/{id}': SCIM_REASON,
  'POST /v1/scim/v2/Bulk': SCIM_REASON,
  'POST /v1/scim/v2/.search': SCIM_REASON,
  'POST /v1/scim/v2/Users/.search': SCIM_REASON,
  'POST /v1/scim/v2/Groups/.search': SCIM_REASON,
  'GET /v1/hris/v1/ServiceProviderConfig': HRIS_REASON,
  'GET /v1/hris/v1/ResourceTypes': HRIS_REASON,
  'GET /v1/hris/v1/ResourceTypes/{id}': HRIS_REASON,
  'GET /v1/hris/v1/Schemas': HRIS_REASON,
  'GET /v1/hris/v1/Schemas/{id}': HRIS_REASON,
  'GET /v1/hris/v1/Employees': HRIS_REASON,
  'POST /v1/hris/v1/Employees': HRIS_REASON,
  'GET /v1/hris/v1/Employees/{id}': HRIS_REASON,
  'PUT /v1/hris/v1/Employees/{id}': HRIS_REASON,
  'PATCH /v1/hris/v1/Employees/{id}': HRIS_REASON,
  'DELETE /v1/hris/v1/Employees/{id}': HRIS_REASON,
  'GET /v1/hris/v1/Departments': HRIS_REASON,
  'POST /v1/hris/v1/Departments': HRIS_REASON,
  'GET /v1/hris/v1/Departments/{id}': HRIS_REASON,
  'PUT /v1/hris/v1/Departments/{id}': HRIS_REASON,
  'PATCH /v1/hris/v1/Departments/{id}': HRIS_REASON,
  'DELETE /v1/hris/v1/Departments/{id}': HRIS_REASON,
  'POST /v1/hris/v1/Bulk': HRIS_REASON,
  'POST /v1/hris/v1/.search': HRIS_REASON,
  'POST /v1/hris/v1/Employees/.search': HRIS_REASON,
  'POST /v1/hris/v1/Departments/.search': HRIS_REASON,
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

let t: TestApp;
let ours: string;
let theirs: string;
const ids: Record<string, string> = {};
let operations: { method: string; path: string }[];

async function call(token: string, method: string, url: string, payload?: object) {
  const res = await t.app.inject({ method: method as 'GET', url, headers: bearer(token), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.body ? res.json() : undefined };
}

/** Creates a resource of organization A through the API and returns the response body. */
async function create(url: string, payload?: object) {
  const res = await call(ours, 'POST', url, payload);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  ours = await t.token();
  theirs = (await otherOrganization(t)).token;

  const o = `/v1/organizations/${(ids.organizationId = t.credentials.organizationId)}`;
  const tenantId: string = (await create('/v1/tenants', { name: 'A' })).tenant.id;
  const tn = `/v1/tenants/${(ids.tenantId = tenantId)}`;
  const saved = await create(`${tn}/projects`, { name: 'A app' });
  ids.projectId = saved.project.id;
  ids.environmentId = saved.environments[0].id;
  ids.webhookId = (await create(`${tn}/webhooks`, { url: 'http://127.0.0.1:9/hook', eventTypes: ['webhook.test'] })).endpoint.id;
  ids.webhookDeliveryId = (await create(`${tn}/webhooks/${ids.webhookId}/test`)).delivery.id;
  const channel = await create(`${tn}/notification-channels`, {
    kind: 'webhook',
    name: 'A',
    eventTypes: ['webhook.test'],
    config: { url: 'http://127.0.0.1:9/c' },
  });
  ids.channelId = channel.channel.id;
  // A channel delivery is made by the dispatcher, which does not run here: the test event's delivery row is written directly.
  const { eventId } = (await call(ours, 'POST', `${tn}/notification-channels/${ids.channelId}/test`)).body;
  ids.channelDeliveryId = await createDeliveryQueries(t.pool).insertDelivery({ tenantId, eventId, channelId: ids.channelId });
  ids.domainId = (await create(`${tn}/domains`, { domain: 'a.example.com', validationMethod: 'dns_txt' })).domain.id;
  await create(`${tn}/invites`, { email: 'seat@example.com' });
  ids.seatId = (await call(ours, 'GET', `${tn}/seats`)).body.seats[0].id;
  ids.connectionId = (await create(`${tn}/environments/${ids.environmentId}/connections`, { providerId: 'email_password', formPayload: '{}' })).connection.id;
  ids.providerId = 'saml';
  ids.provider = 'resend';
  const emailProvider = { provider: 'resend', config: { from: 'a@example.com' }, secrets: { apiKey: 're_isolated_0123456789' } };
  expect((await call(ours, 'PUT', `${tn}/environments/${ids.environmentId}/email-providers/resend`, emailProvider)).status).toBe(200);
  ids.kind = 'turnstile';
  const addOn = { config: { siteKey: 'isolated-site' }, secrets: { secretKey: 'isolated-secret-0123' } };
  expect((await call(ours, 'PUT', `${tn}/environments/${ids.environmentId}/add-ons/turnstile`, addOn)).status).toBe(200);
  // A segment add-on with a delivery (written directly: no dispatcher runs here) for its delivery routes.
  const segment = { config: { baseUrl: 'http://127.0.0.1:9' }, secrets: { writeKey: 'isolated-write-key' } };
  const addOnId: string = (await call(ours, 'PUT', `${tn}/environments/${ids.environmentId}/add-ons/segment`, segment)).body.addOn.id;
  ids.addOnDeliveryId = await createDeliveryQueries(t.pool).insertDelivery({ tenantId, eventId, addOnId });
  const directory = `${tn}/environments/${ids.environmentId}/directory`;
  ids.userId = (await create(`${directory}/users`, { userName: 'isolated@example.com' })).user.id;
  ids.groupId = (await create(`${directory}/groups`, { name: 'Isolated' })).group.id;
  const claims = `${tn}/environments/${ids.environmentId}/settings/jwt-claim-mappings`;
  ids.mappingId = (await create(claims, { claimName: 'team', source: 'static', staticValue: 'a' })).mapping.id;
  const definition = { fields: [{ name: 'company', type: 'text', label: 'Company' }] };
  ids.formId = (await create(`${tn}/environments/${ids.environmentId}/forms`, { name: 'A', key: 'a', definition })).form.id;
  ids.attachmentId = (await create(`${tn}/environments/${ids.environmentId}/form-attachments`, { formId: ids.formId, hookType: 'pre_signup' })).attachment.id;
  // Sessions are written by the provider at sign-in.
  ids.sessionId = String(
    await t.pool.oneFirst(sql.unsafe`
      INSERT INTO directory_sessions (environment_id, user_id, session_uid) VALUES (${ids.environmentId!}, ${ids.userId!}, 'isolated') RETURNING id`),
  );
  // Passkeys are registered by the user on the sign-in pages.
  ids.passkeyId = String(
    await t.pool.oneFirst(sql.unsafe`
      INSERT INTO user_passkeys (environment_id, user_id, credential_id, public_key, device_type, name)
      VALUES (${ids.environmentId!}, ${ids.userId!}, 'isolated', '\\x00', 'singleDevice', 'Isolated') RETURNING id`),
  );
  // A TOTP factor is enrolled on the sign-in pages: one started through their service.
  ids.factorId = (await createMfaService(t.pool, t.masterKey).startTotpEnrolment({ tenantId, environmentId: ids.environmentId! }, ids.userId!)).factorId;
  ids.invitationId = (await create(`${o}/invitations`, { email: 'invitee@example.com' })).invitation.id;
  ids.keyId = (await create(`${o}/keys`, { name: 'A key' })).key.id;
  ids.serviceAccountId = (await create(`${o}/service-accounts`, { name: 'A robot' })).serviceAccount.id;
  ids.linkId = (await create(`${o}/portal-links`, { tenantId, intent: 'audit_logs' })).portalLink.id;
  ids.memberId = (await call(ours, 'GET', `${o}/members`)).body.members[0].id;
  ids.secretId = (await create(`${tn}/environments/${ids.environmentId}/api-secrets`, { name: 'A secret', purposes: ['authzen'] })).apiSecret.id;
  const oidcClients = `${tn}/environments/${ids.environmentId}/oidc/clients`;
  ids.clientId = (await create(oidcClients, { clientName: 'Isolated', redirectUris: ['https://isolated.example.com/cb'] })).client.clientId;
  ids.tokenId = (await create(`${tn}/environments/${ids.environmentId}/provisioning-tokens`, { name: 'A token', kind: 'scim' })).provisioningToken.id;
  const widgetToken = { kind: 'user_profile', userId: ids.userId, origins: ['https://a.example'] };
  ids.widgetTokenId = (await create(`${tn}/environments/${ids.environmentId}/widgets/tokens`, widgetToken)).widgetToken.id;
  const rbac = `${tn}/environments/${ids.environmentId}/rbac`;
  ids.type = (await create(`${rbac}/resource-types`, { key: 'todo', actions: [{ name: 'read' }] })).resourceType.key;
  ids.action = 'read';
  ids.resourceId = 't1';
  await call(ours, 'PUT', `${rbac}/resources/todo/t1`, { attributes: {} });
  ids.role = (await create(`${rbac}/roles`, { key: 'viewer', permissions: [{ permission: 'todo:read' }] })).role.key;
  ids.assignmentId = (await create(`${rbac}/assignments`, { role: 'viewer', userId: ids.userId })).assignment.id;
  ids.impersonationGrantId = (
    await create(`${tn}/environments/${ids.environmentId}/impersonation/grants`, { userId: ids.userId, reason: 'Isolation' })
  ).grant.id;
  // A brute-force lockout is written by failed sign-ins on the hosted pages.
  ids.lockoutId = String(
    await t.pool.oneFirst(sql.unsafe`
      INSERT INTO sign_in_failures (environment_id, kind, key, failures, expires_at, locked_until)
      VALUES (${ids.environmentId!}, 'ip', '192.0.2.9', 5, now() + interval '1 hour', now() + interval '1 hour') RETURNING id`),
  );
  const threats = `${tn}/environments/${ids.environmentId}/threats`;
  ids.threatId = (await create(threats, { severity: 'low', subject: 'agent', summary: 'An isolated threat' })).threat.id;
  const trustStore = `${tn}/environments/${ids.environmentId}/mcp/trust-store`;
  ids.entryId = (await create(trustStore, { kind: 'agent', subject: 'isolated-agent', name: 'Isolated' })).entry.id;
  const jwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
  ids.trustStoreKeyId = (await create(`${trustStore}/${ids.entryId}/keys`, { jwk })).key.id;
  const elevate = `${tn}/environments/${ids.environmentId}/elevate`;
  const approverId = (await create(`${directory}/users`, { userName: 'approver@example.com' })).user.id;
  const target = { type: 'group', groupId: ids.groupId };
  ids.policyId = (
    await create(`${elevate}/policies`, {
      name: 'A',
      target,
      eligible: { userIds: [ids.userId] },
      approvers: { userIds: [approverId] },
      maxDurationSeconds: 60,
    })
  ).policy.id;
  ids.requestId = (await create(`${elevate}/requests`, { policyId: ids.policyId, requesterId: ids.userId })).request.id;
  ids.grantId = (await create(`${elevate}/requests/${ids.requestId}/approve`, { approverId })).grant.id;

  // A's FGA store (its environment's) with a model.
  ids.store_id = storeIdOf(ids.environmentId!);
  const fgaModel = { schema_version: '1.1', type_definitions: [{ type: 'user' }] };
  ids.id = ids.authorization_model_id = (await create(`/v1/fga/stores/${ids.store_id}/authorization-models`, fgaModel)).authorization_model_id;

  // A message of A's environment: queued through its active email provider (no process runs here to send it).
  const providers = `${tn}/environments/${ids.environmentId}/email-providers/postmark`;
  const postmark = { provider: 'postmark', active: true, config: { from: 'noreply@example.com' }, secrets: { serverToken: 'postmark-token-0123456789' } };
  expect((await call(ours, 'PUT', providers, postmark)).status).toBe(200);
  await t.app.messages.sender.send({ template: 'verification', params: { code: '123456' }, to: 'a@example.com', environmentId: ids.environmentId! });
  ids.messageId = (await call(ours, 'GET', `${tn}/environments/${ids.environmentId}/messages`)).body.messages[0].id;
  ids.vanityDomainId = (await create(`${tn}/environments/${ids.environmentId}/vanity-domains`, { hostname: 'login.isolation.example.com' })).domain.id;

  // A's billing catalog and a subscription of A's organization.
  const billing = `${tn}/environments/${ids.environmentId}/billing`;
  ids.organization = ids.organizationId!;
  ids.featureKey = (await create(`${billing}/features`, { key: 'sso', name: 'SSO', kind: 'boolean' })).feature.key;
  ids.planKey = (await create(`${billing}/plans`, { key: 'pro', name: 'Pro', features: { sso: true } })).plan.key;
  ids.subscriptionId = (await create(`${billing}/subscriptions`, { organizationId: ids.organizationId, planKey: 'pro' })).subscription.id;

  const document = (await t.app.inject({ method: 'GET', url: '/v1/openapi' })).json() as { paths: Record<string, Record<string, unknown>> };
  operations = Object.entries(document.paths)
    .filter(([path]) => !path.startsWith('/docs'))
    .flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ method: method.toUpperCase(), path })));
});
afterAll(() => t.close());

/** The path with A's ids; a delivery is the webhook's or the channel's, as the path says. */
function urlOf(path: string) {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'kind' && path.includes('/add-ons/{kind}/deliveries')) return 'segment';
    if (name === 'deliveryId' && path.includes('/add-ons/')) return ids.addOnDeliveryId!;
    const key = name === 'deliveryId' ? (path.includes('/notification-channels/') ? 'channelDeliveryId' : 'webhookDeliveryId') : name;
    if (name === 'keyId' && path.includes('/mcp/trust-store/')) return ids.trustStoreKeyId!;
    if (name === 'grantId' && path.includes('/impersonation/')) return ids.impersonationGrantId!;
    if (name === 'tokenId' && path.includes('/widgets/')) return ids.widgetTokenId!;
    if (name === 'provider' && path.includes('/sms-providers/')) return 'twilio';
    const id = ids[key];
    if (!id) throw new Error(`${path}: no resource of organization A for {${name}}; create one in beforeAll`);
    return id;
  });
}

const addressed = () => operations.filter(({ method, path }) => !(`${method} ${path}` in ALLOWLIST));

describe('isolation between organizations', () => {
  it('walks a document with the operations it expects', () => {
    expect(addressed().length).toBeGreaterThan(60);
    const listed = new Set(operations.map(({ method, path }) => `${method} ${path}`));
    expect(Object.keys(ALLOWLIST).filter((op) => !listed.has(op))).toEqual([]);
  });

  it("answers 404, naming what it addresses, for every operation on another organization's tenant or organization", async () => {
    const answers: string[] = [];
    for (const { method, path } of addressed()) {
      const payload = ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined;
      const { status, body } = await call(theirs, method, urlOf(path), payload);
      const first = /\{(\w+)\}/.exec(path)?.[1];
      const named = first === 'tenantId' ? 'tenant' : first === 'organizationId' ? 'organization' : '*';
      answers.push(`${method} ${path} ${status} ${status === 404 && (named === '*' || body.code === `${named}.not_found`) ? 'ok' : body?.code}`);
    }
    expect(answers.filter((a) => !a.endsWith(' 404 ok'))).toEqual([]);
  });

  it('uses real resources: organization A reads each of them', async () => {
    const reads = addressed().filter(({ method }) => method === 'GET');
    const statuses = await Promise.all(reads.map(async ({ path }) => `${path} ${(await call(ours, 'GET', urlOf(path))).status}`));
    expect(statuses.filter((s) => !s.endsWith(' 200'))).toEqual([]);
  });
});
