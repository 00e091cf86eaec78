import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Just the parts of OpenAPI 3.1 the checks read.
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: unknown;
  $ref?: string;
}
interface Content {
  content?: Record<string, { schema?: Schema }>;
}
interface Response extends Content {
  description?: string;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  'x-required-scope'?: string;
  requestBody?: Content;
  responses?: Record<string, Response>;
}
interface SecurityScheme {
  type?: string;
  scheme?: string;
  bearerFormat?: string;
  description?: string;
  flows?: { clientCredentials?: { tokenUrl?: string; scopes?: Record<string, string> } };
}
interface Document {
  openapi: string;
  info: { version: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, SecurityScheme> };
}

const PUBLIC = new Set([
  'GET /v1/health',
  'GET /v1/health/live',
  'GET /v1/health/ready',
  'GET /v1/openapi',
  'GET /.well-known/jwks.json',
  'POST /v1/oauth/token',
  'GET /.well-known/authzen-configuration',
]);
// Slack's interactivity requests carry no credential of ours: the channel's signing secret signs them.
PUBLIC.add('POST /v1/integrations/slack/interactivity/{channelId}');
// Postmark's bounce webhook: Basic auth with the environment's Postmark server token, checked by the route.
PUBLIC.add('POST /v1/hooks/email/postmark/{environment}');
// Stripe's webhooks: signed with the stripe add-on's webhook secret, checked by the route.
PUBLIC.add('POST /v1/billing/stripe/{environment}/webhook');
// RFC 9728 metadata of an MCP server: what an MCP client reads before it has any token.
PUBLIC.add('GET /v1/oidc/{issuerEnvironmentId}/protected-resources/{entryId}');
PUBLIC.add('GET /.well-known/oauth-protected-resource/v1/oidc/{issuerEnvironmentId}/protected-resources/{entryId}');
// Reads the caller's own user, or joins with an invitation code (the code is the authorization), so any valid
// token will do: bearer required, no particular scope.
const ANY_SCOPE = new Set(['GET /v1/userinfo', 'POST /v1/tenants/join', 'POST /v1/organizations/invitations/accept', 'POST /v1/organizations/join']);
// Token introspection (RFC 7662) authenticates its caller itself (bearer token or client credentials), answers its
// errors in RFC 6749 form and ignores unknown parameters, like the token endpoint.
const INTROSPECTION = 'POST /v1/oauth/introspect';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let t: TestApp;
let raw: Parameters<typeof validate>[0];
let doc: Document;
let resolved: Document;
beforeAll(async () => {
  t = await startTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/v1/openapi' });
  expect(res.statusCode).toBe(200);
  raw = res.json();
  doc = raw as Document;
  resolved = (await dereference(structuredClone(raw))) as unknown as Document;
});
afterAll(() => t.close());

function operations(document: Document): [string, string, Operation][] {
  return Object.entries(document.paths ?? {})
    .filter(([path]) => !path.startsWith('/docs'))
    .flatMap(([path, item]) => METHODS.flatMap((m) => (item[m] ? [[path, m, item[m]] as [string, string, Operation]] : [])));
}

const isErrorShape = (schema: Schema | undefined) =>
  ['error', 'code', 'requestId'].every((key) => schema?.properties?.[key] !== undefined && schema.required?.includes(key));
// SCIM errors are RFC 7644 §3.12 bodies: `status` as a string and `detail`.
const isScimErrorShape = (schema: Schema | undefined) =>
  ['schemas', 'status', 'detail'].every((key) => schema?.properties?.[key] !== undefined && schema.required?.includes(key));

describe('GET /v1/openapi', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    // validate() dereferences its argument in place.
    const result = await validate(structuredClone(raw));
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.specification).toBe('OpenAPI');
    expect(result.warnings).toEqual([]);
  });

  it('describes every operation: tags, summary, security, body, success and error responses', () => {
    const ops = operations(resolved);
    expect(ops.length).toBeGreaterThan(10);
    const scopes = Object.keys(resolved.components?.securitySchemes?.oauth2?.flows?.clientCredentials?.scopes ?? {});
    for (const [path, method, op] of ops) {
      const name = `${method.toUpperCase()} ${path}`;
      expect(op.tags, name).toEqual(expect.arrayContaining([expect.stringMatching(/\S/)]));
      expect(op.summary, name).toMatch(/\S/);

      // The widget API: a widget token authenticates it, checked by the route itself (test/api/widgets.test.ts).
      if (PUBLIC.has(name) || path.startsWith('/v1/widgets/')) {
        expect(op.security ?? [], name).toEqual([]);
      } else if (path.startsWith('/access/v1/') || path.startsWith('/v1/mcp/')) {
        // AuthZEN and the trust-store runtime: an environment API secret selects the environment.
        expect(op.security, `${name} security`).toEqual([{ environmentSecret: [] }]);
      } else if (name === 'POST /v1/mcp/events') {
        // MCP runtime events: an environment API secret (purpose mcp) selects the environment.
        expect(op.security, `${name} security`).toEqual([{ environmentSecret: [] }]);
      } else if (path.startsWith('/v1/scim/v2/') || path.startsWith('/v1/hris/v1/')) {
        // SCIM and HRIS: a provisioning token selects the environment.
        expect(op.security, `${name} security`).toEqual([{ provisioningToken: [] }]);
      } else {
        const required = op.security?.find((s) => 'oauth2' in s)?.oauth2 ?? [];
        if (ANY_SCOPE.has(name)) {
          // Users only: a personal access token, which is a bearer token but no OAuth 2.0 one.
          expect(op.security, `${name} security`).toEqual([{ bearerAuth: [] }]);
          expect(op['x-required-scope'], name).toBeUndefined();
        } else {
          // The OAuth 2.0 alternative lists the one scope the operation needs; a bearer scheme has no scopes of its own
          // (spectral:oas), so `x-required-scope` states it for every kind of bearer token.
          expect(required, `${name} scopes`).toHaveLength(1);
          // The FGA API (OpenFGA's) also takes an environment API secret (purpose fga), which selects its store.
          const secret = path.startsWith('/v1/fga/') ? [{ environmentSecret: [] }] : [];
          expect(op.security, `${name} security`).toEqual([{ bearerAuth: [] }, { oauth2: required }, ...secret]);
          expect(op['x-required-scope'], name).toBe(required[0]);
        }
        for (const scope of required ?? []) expect(scopes, `${name} scope ${scope}`).toContain(scope);
      }

      // PATCH/PUT always take a body, and so does a POST that creates in a listable collection;
      // other POSTs are actions (rotate, revoke) that may have none.
      const takesBody = method === 'patch' || method === 'put' || (method === 'post' && resolved.paths?.[path]?.get !== undefined);
      if (takesBody) expect(op.requestBody, `${name} requestBody`).toBeDefined();
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        expect(media.schema?.type, `${name} ${type} body schema`).toBe('object');
      }

      const responses = Object.entries(op.responses ?? {});
      expect(
        responses.some(([status]) => /^2(\d\d|XX)$/.test(status)),
        `${name} 2xx`,
      ).toBe(true);
      for (const [status, response] of responses) expect(response.description, `${name} ${status} description`).not.toBe('Default Response');
      if (PUBLIC.has(name)) continue;
      if (name === INTROSPECTION) continue;
      const errors = responses.filter(([status]) => /^4(\d\d|XX)$/.test(status));
      expect(errors.length, `${name} 4xx`).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        const shape = path.startsWith('/v1/scim/v2/') || path.startsWith('/v1/hris/v1/') ? isScimErrorShape : isErrorShape;
        expect(shape(response.content?.['application/json']?.schema), `${name} ${status} error shape`).toBe(true);
      }
    }
  });

  it('names, describes and tags every operation: a unique camelCase operationId, a summary, a description, one declared tag', () => {
    const declared = (doc.tags ?? []).map((tag) => tag.name);
    expect(new Set(declared).size, 'tag names are unique').toBe(declared.length);
    for (const tag of doc.tags ?? []) expect(tag.description, `tag ${tag.name} description`).toMatch(/\S/);

    const ops = operations(doc);
    const ids = ops.map(([, , op]) => op.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const [path, method, op] of ops) {
      const name = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, `${name} operationId`).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(op.summary, `${name} summary`).toMatch(/\S/);
      expect(op.description, `${name} description`).toMatch(/\S/);
      expect(op.description, `${name} description says more than the summary`).not.toBe(op.summary);
      expect(op.tags, `${name} tags`).toHaveLength(1);
      expect(declared, `${name} tag`).toContain(op.tags?.[0]);
    }
    // Every declared tag has operations: the list is the families in use.
    expect(declared.filter((tag) => !ops.some(([, , op]) => op.tags?.includes(tag)))).toEqual([]);
  });

  it('lists itself as the public operation getOpenApiDocument, and is version 1.0.0', () => {
    const op = doc.paths?.['/v1/openapi']?.get;
    expect(op?.operationId).toBe('getOpenApiDocument');
    expect(op?.tags).toEqual(['Health']);
    expect(op?.security).toBeUndefined();
    expect(doc.info.version).toBe('1.0.0');
  });

  it('declares the HTTP bearer scheme beside the OAuth 2.0 client-credentials one, the environment API secret and the provisioning token', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    expect(Object.keys(schemes).sort()).toEqual(['bearerAuth', 'environmentSecret', 'oauth2', 'provisioningToken']);
    expect(schemes.environmentSecret).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'adenv_…' });
    expect(schemes.provisioningToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(schemes.bearerAuth?.description).toMatch(/personal access token/);
    expect(schemes.bearerAuth?.description).toMatch(/organization key/);
    expect(schemes.oauth2).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${t.config.publicBaseUrl}/v1/oauth/token` } } });
  });

  it('keeps every response schema open and every request body strict', () => {
    const schemas = doc.components?.schemas ?? {};
    // Every schema object below `value`, following $refs into the components once.
    const schemaNodes = (value: unknown, seen = new Set<string>()): Schema[] => {
      if (Array.isArray(value)) return value.flatMap((v) => schemaNodes(v, seen));
      if (!value || typeof value !== 'object') return [];
      const node = value as Schema;
      const ref = node.$ref?.replace('#/components/schemas/', '');
      if (ref !== undefined) {
        if (seen.has(ref)) return [];
        seen.add(ref);
        return schemaNodes(schemas[ref], seen);
      }
      return [node, ...Object.values(node).flatMap((v) => schemaNodes(v, seen))];
    };
    const ops = operations(doc);

    const closed = ops.flatMap(([path, method, op]) =>
      Object.entries(op.responses ?? {}).flatMap(([status, response]) =>
        schemaNodes(response.content).some((node) => node.additionalProperties === false) ? [`${method.toUpperCase()} ${path} ${status}`] : [],
      ),
    );
    expect(closed, 'responses with a closed schema').toEqual([]);

    // RFC 6749 ignores unknown parameters, AuthZEN 1.0 says unknown fields MUST be ignored, and SCIM is lenient by
    // spec (RFC 7644 §3.3: unknown attributes are ignored; clients send read-only and vendor attributes).
    const bodies = ops.filter(
      ([path, , op]) =>
        op.requestBody && path !== '/v1/oauth/token' && !path.startsWith('/access/v1/') && !path.startsWith('/v1/scim/v2/') && !path.startsWith('/v1/hris/v1/'),
    );
    expect(bodies.length).toBeGreaterThan(10);
    for (const [path, method, op] of bodies) {
      if (`${method.toUpperCase()} ${path}` === INTROSPECTION) continue;
      // The session config is free-form (SPEC): unknown keys are kept.
      if (path.endsWith('/settings/session')) continue;
      // A vendor's webhook: the vendor decides its fields (Postmark adds some over time); the route reads a few.
      if (path.startsWith('/v1/hooks/')) continue;
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        const [body] = schemaNodes(media.schema);
        expect(body?.additionalProperties, `${method.toUpperCase()} ${path} ${type} body`).toBe(false);
      }
    }
  });

  it('shapes resources with the nullability and optionality of the interface', () => {
    const schemas = doc.components?.schemas ?? {};
    // A property as `<types>` plus `?` when it may be absent, e.g. `boolean|null` or `Organization?`.
    const field = (schema: string, property: string) => {
      const shape = schemas[schema];
      const value = shape?.properties?.[property] as (Schema & { anyOf?: Schema[] }) | undefined;
      if (!shape || !value) return undefined;
      const types = (value.anyOf ?? [value]).flatMap((v) => v.$ref?.replace('#/components/schemas/', '') ?? v.type ?? []);
      return types.join('|') + (shape.required?.includes(property) ? '' : '?');
    };
    expect({
      'Environment.name': field('Environment', 'name'),
      'ServiceAccount.active': field('ServiceAccount', 'active'),
      'PersonalAccessToken.active': field('PersonalAccessToken', 'active'),
      'PersonalAccessToken.scopes': field('PersonalAccessToken', 'scopes'),
      'LinkTenantResponse.organization': field('LinkTenantResponse', 'organization'),
      'AcceptOrganizationInvitationResponse.organization': field('AcceptOrganizationInvitationResponse', 'organization'),
      'AcceptOrganizationInvitationResponse.member': field('AcceptOrganizationInvitationResponse', 'member'),
      'OrganizationInvitationResponse.organization': field('OrganizationInvitationResponse', 'organization'),
      'OrganizationInvitationResponse.invitation': field('OrganizationInvitationResponse', 'invitation'),
      'TenantInviteResponse.tenant': field('TenantInviteResponse', 'tenant'),
      'OrganizationKeyResponse.meta': field('OrganizationKeyResponse', 'meta'),
      'OrganizationKeyWithTokenResponse.meta': field('OrganizationKeyWithTokenResponse', 'meta'),
    }).toEqual({
      'Environment.name': 'string',
      'ServiceAccount.active': 'boolean|null',
      'PersonalAccessToken.active': 'boolean|null',
      'PersonalAccessToken.scopes': 'array|null',
      'LinkTenantResponse.organization': 'Organization?',
      'AcceptOrganizationInvitationResponse.organization': 'Organization?',
      'AcceptOrganizationInvitationResponse.member': 'OrganizationMember?',
      'OrganizationInvitationResponse.organization': 'Organization?',
      'OrganizationInvitationResponse.invitation': 'OrganizationInvitation?',
      'TenantInviteResponse.tenant': 'Tenant?',
      'OrganizationKeyResponse.meta': 'ManagementMeta?',
      'OrganizationKeyWithTokenResponse.meta': 'ManagementMeta?',
    });
    expect(doc.paths?.['/v1/organizations/{organizationId}/tenants']?.post?.responses?.['200']?.content?.['application/json']?.schema?.$ref).toBe(
      '#/components/schemas/LinkTenantResponse',
    );
  });

  it('documents no schema that no operation uses', () => {
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/[^"]+/g) ?? [];
    const used = new Set(refs.map((r) => r.slice('#/components/schemas/'.length)));
    expect(Object.keys(doc.components?.schemas ?? {}).filter((name) => !used.has(name))).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('serves Swagger UI', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    if (res.statusCode >= 300 && res.statusCode < 400) res = await t.app.inject({ method: 'GET', url: String(res.headers.location) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('swagger-ui');
  });
});
