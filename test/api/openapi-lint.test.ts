// Lints GET /v1/openapi with Spectral's `spectral:oas` ruleset, as a consumer's tooling (linters, client generators)
// would: no errors and no warnings. Runs inside `npm test`; on failure the findings are printed, one a line.
import { Document, Spectral, type IFunctionResult, type RulesetDefinition, type RulesetFunctionContext } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const SEVERITY = ['error', 'warning', 'info', 'hint'];

interface SecurityScheme {
  flows?: Record<string, { scopes?: Record<string, string> }>;
}
const scopesOf = (scheme: SecurityScheme | undefined) => Object.values(scheme?.flows ?? {}).flatMap((flow) => Object.keys(flow.scopes ?? {}));

/**
 * spectral:oas's `oas3-operation-security-defined`, for OpenAPI 3.1: there a requirement of a scheme other than OAuth 2.0
 * may list role names (OAS 3.1, Security Requirement Object), and ours do (the scope a bearer token must carry), which the original rule,
 * written for 3.0, reports as undeclared OAuth scopes. Same checks otherwise: the scheme is declared, and an OAuth 2.0
 * scheme's names are scopes of its flows; the role names of other schemes must be OAuth 2.0 scopes of the document.
 */
function securityDefined(requirement: Record<string, string[]>, _options: unknown, { document, path }: RulesetFunctionContext): IFunctionResult[] {
  const { components } = document.data as { components?: { securitySchemes?: Record<string, SecurityScheme> } };
  const schemes = components?.securitySchemes ?? {};
  const everyScope = new Set(Object.values(schemes).flatMap(scopesOf));
  return Object.entries(requirement).flatMap(([name, scopes]) => {
    const scheme = schemes[name];
    if (!scheme) return [{ message: `"${name}" is not a scheme declared in components.securitySchemes.`, path: [...path, name] }];
    const known = scheme.flows ? new Set(scopesOf(scheme)) : everyScope;
    return scopes.flatMap((scope, i) => (known.has(scope) ? [] : [{ message: `"${scope}" must be listed among scopes.`, path: [...path, name, i] }]));
  });
}

const ruleset: RulesetDefinition = {
  extends: [[oas as RulesetDefinition, 'recommended']],
  rules: {
    // Off in `recommended`, on here: the document declares its tags, each with a description, one tag an operation.
    'openapi-tags': 'warn',
    'tag-description': 'warn',
    'operation-singular-tag': 'warn',
    // Replaced by the OpenAPI 3.1 reading above (the same checks, but bearer role names allowed).
    'oas3-operation-security-defined': 'off',
    'operation-security-defined': {
      description: 'Operation "security" values match a declared scheme and declared scopes.',
      message: '{{error}}',
      severity: 'warn',
      given: ['$.security[*]', '$.paths[*][get,put,post,delete,options,head,patch,trace].security[*]'],
      then: { function: securityDefined },
    },
  },
};

let t: TestApp;
let body: string;
beforeAll(async () => {
  t = await startTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/v1/openapi' });
  expect(res.statusCode).toBe(200);
  body = res.body;
});
afterAll(() => t.close());

/** The stock `spectral:oas` ruleset, exactly as `spectral lint` with `extends: spectral:oas` runs it. */
const stock: RulesetDefinition = { extends: [oas as RulesetDefinition] };

async function lint(json: string, rules: RulesetDefinition = ruleset) {
  const spectral = new Spectral();
  spectral.setRuleset(rules);
  const results = await spectral.run(new Document(json, Json, '/v1/openapi'));
  return results.filter((r) => r.severity <= 1).map((r) => `${SEVERITY[r.severity] ?? r.severity} ${String(r.code)} at ${r.path.join('.')}: ${r.message}`);
}

describe('GET /v1/openapi under Spectral (spectral:oas)', () => {
  it('has no errors and no warnings under the stock spectral:oas ruleset', async () => {
    expect((await lint(body, stock)).join('\n')).toBe('');
  });

  it('has no errors and no warnings under the project rules', async () => {
    expect((await lint(body)).join('\n')).toBe('');
  });

  it('still reports security requirements naming an undeclared scheme or scope', async () => {
    const doc = JSON.parse(body) as { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };
    const op = doc.paths['/v1/tenants']?.get;
    if (!op) throw new Error('GET /v1/tenants is not documented');
    op.security = [{ bearerAuth: ['tenants:read'] }, { bearerAuth: ['nope:read'] }, { oauth2: ['nope:write'] }, { apiKey: [] }];
    expect(await lint(JSON.stringify(doc))).toEqual([
      'warning operation-security-defined at paths./v1/tenants.get.security.1.bearerAuth.0: "nope:read" must be listed among scopes.',
      'warning operation-security-defined at paths./v1/tenants.get.security.2.oauth2.0: "nope:write" must be listed among scopes.',
      'warning operation-security-defined at paths./v1/tenants.get.security.3.apiKey: "apiKey" is not a scheme declared in components.securitySchemes.',
    ]);
  });
});
