// Hostile input on every operation of the OpenAPI document: bodies of the wrong shape, and bodies that are right
// but for one field set to a hostile value (wrong types, null bytes, control characters, huge strings, deep
// nesting, extreme numbers). Whatever the route, the answer is a 4xx (or a success), never a 5xx. The operator's
// own tenant, organization, project and environment are addressed, so requests get past the scope guard to
// validation and the handlers; each goes with the service account's token and with the operator's personal access
// token (some operations are for users only), /access/v1 with an environment API secret and /v1/scim/v2 with a
// provisioning token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: string;
  minimum?: number;
  minItems?: number;
  $ref?: string;
}

let t: TestApp;
let tokens: string[];
let secret: string;
let operations: { method: string; path: string; body: Schema | undefined }[];
let components: Record<string, Schema>;

const deep = (levels: number): unknown => (levels === 0 ? 'x' : { a: deep(levels - 1) });
const HOSTILE: unknown[] = [null, true, -1, 1e308, '', 'a\u0000b', 'line\nbreak\u202e', 'x'.repeat(100_000), [], [null], {}, { $gt: '' }, deep(40)];
const WRONG_BODIES: unknown[] = [[], 'text', 42, null, { unknownField: 1 }, deep(200)];

let provisioningToken: string;
let hrisToken: string;

/** The credentials a request to `path` is sent with. */
const credentialsFor = (path: string) =>
  path.startsWith('/access/v1/') ? [secret] : path.startsWith('/v1/scim/v2/') ? [provisioningToken] : path.startsWith('/v1/hris/v1/') ? [hrisToken] : tokens;

const resolve = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? resolve(components[schema.$ref.replace('#/components/schemas/', '')]) : schema;

/** A plausible value for a schema: enough to pass validation where it can, so one hostile field gets through to the handler. */
function sample(raw: Schema | undefined, name = ''): unknown {
  const schema = resolve(raw);
  if (!schema) return 'x';
  if (schema.enum) return schema.enum[0];
  const alternative = schema.anyOf ?? schema.oneOf;
  if (alternative) return sample(alternative.find((s) => resolve(s)?.type !== 'null') ?? alternative[0], name);
  const type = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((key) => [key, sample(schema.properties?.[key], key)]));
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items, name));
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    default:
      if (schema.format === 'email' || /email/i.test(name)) return 'fuzz@example.com';
      if (schema.format === 'uri' || /url|uri/i.test(name)) return 'https://example.com/x';
      if (schema.format === 'date-time' || /At$/.test(name)) return '2099-01-01T00:00:00Z';
      if (schema.format === 'uuid' || /Id$/.test(name)) return crypto.randomUUID();
      return 'fuzz';
  }
}

beforeAll(async () => {
  t = await startTestApp();
  tokens = [await t.token(), t.credentials.personalAccessToken];
  const { tenantId: tenant, environmentId: environment } = t.credentials;
  const created = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenant}/environments/${environment}/api-secrets`,
    headers: bearer(tokens[0]!),
    payload: { name: 'fuzz', purposes: ['authzen'] },
  });
  secret = created.json().secret;
  provisioningToken = (
    await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${tenant}/environments/${environment}/provisioning-tokens`,
      headers: bearer(tokens[0]!),
      payload: { name: 'fuzz', kind: 'scim' },
    })
  ).json().token;
  hrisToken = (
    await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${tenant}/environments/${environment}/provisioning-tokens`,
      headers: bearer(tokens[0]!),
      payload: { name: 'fuzz hris', kind: 'hris' },
    })
  ).json().token;
  const document = (await t.app.inject({ method: 'GET', url: '/v1/openapi' })).json() as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
    components: { schemas: Record<string, Schema> };
  };
  components = document.components.schemas;
  const { organizationId, tenantId, projectId, environmentId } = t.credentials;
  const known: Record<string, string> = { organizationId, tenantId, projectId, environmentId };
  operations = Object.entries(document.paths)
    .filter(([path]) => !path.startsWith('/docs'))
    .flatMap(([path, item]) =>
      ['post', 'put', 'patch'].flatMap((method) => {
        const op = item[method];
        if (!op) return [];
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => known[name] ?? (/Id$/.test(name) ? crypto.randomUUID() : 'fuzz'));
        return [{ method: method.toUpperCase(), path: url, body: op.requestBody?.content?.['application/json']?.schema }];
      }),
    );
}, 60_000);
afterAll(() => t.close());

describe('hostile input on every operation', () => {
  it('answers bodies of the wrong shape with a 4xx', async () => {
    expect(operations.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const { method, path } of operations) {
      for (const credential of credentialsFor(path)) {
        for (const body of WRONG_BODIES) {
          const res = await t.app.inject({
            method: method as 'POST',
            url: path,
            headers: { ...bearer(credential), 'content-type': 'application/json' },
            payload: JSON.stringify(body),
          });
          if (res.statusCode >= 500) failures.push(`${method} ${path} ${JSON.stringify(body).slice(0, 40)} → ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('answers a plausible body with one hostile field with a 4xx or a success, never a 5xx', async () => {
    const failures: string[] = [];
    for (const { method, path, body } of operations) {
      const schema = resolve(body);
      if (!schema?.properties) continue;
      const base = sample(schema) as Record<string, unknown>;
      for (const credential of credentialsFor(path)) {
        for (const field of Object.keys(schema.properties)) {
          for (const value of HOSTILE) {
            const res = await t.app.inject({
              method: method as 'POST',
              url: path,
              headers: bearer(credential),
              payload: { ...base, [field]: value } as object,
            });
            if (res.statusCode >= 500) {
              failures.push(`${method} ${path} ${field}=${JSON.stringify(value).slice(0, 30)} → ${res.statusCode} ${res.body.slice(0, 120)}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
