import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// Just the parts of OpenAPI 3.1 the checks read.
interface Schema {
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
}
interface Content {
  content?: Record<string, { schema?: Schema }>;
}
interface Response extends Content {
  description?: string;
}
interface Operation {
  tags?: string[];
  summary?: string;
  security?: Record<string, string[]>[];
  requestBody?: Content;
  responses?: Record<string, Response>;
}
interface Document {
  openapi: string;
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, { flows?: { clientCredentials?: { scopes?: Record<string, string> } } }> };
}

const PUBLIC = new Set(['GET /v1/health', 'GET /.well-known/jwks.json', 'POST /v1/oauth/token']);
// Reads the caller's own user, or joins with an invitation code (the code is the authorization), so any valid
// token will do: bearer required, no particular scope.
const ANY_SCOPE = new Set(['GET /v1/userinfo', 'POST /v1/tenants/join', 'POST /v1/organizations/invitations/accept', 'POST /v1/organizations/join']);
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
    const scopes = Object.keys(resolved.components?.securitySchemes?.bearerAuth?.flows?.clientCredentials?.scopes ?? {});
    for (const [path, method, op] of ops) {
      const name = `${method.toUpperCase()} ${path}`;
      expect(op.tags, name).toEqual(expect.arrayContaining([expect.stringMatching(/\S/)]));
      expect(op.summary, name).toMatch(/\S/);

      if (PUBLIC.has(name)) {
        expect(op.security ?? [], name).toEqual([]);
      } else {
        const required = op.security?.find((s) => 'bearerAuth' in s)?.bearerAuth;
        expect(required, `${name} security`).toBeInstanceOf(Array);
        if (!ANY_SCOPE.has(name)) expect(required, `${name} scopes`).not.toEqual([]);
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
      const errors = responses.filter(([status]) => /^4(\d\d|XX)$/.test(status));
      expect(errors.length, `${name} 4xx`).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        expect(isErrorShape(response.content?.['application/json']?.schema), `${name} ${status} error shape`).toBe(true);
      }
    }
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
