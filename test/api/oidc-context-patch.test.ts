// The load hook of api/oidc/context-patch.ts: the oidc-provider this process loaded gives requests their `ctx.oidc`
// through one accessor on the Koa context prototype (no accessor per request, which kept every request alive through
// young-generation collections), and the provider still works through it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcProviderContextPatch } from '../../api/oidc/context-patch.ts';
import { oidcEnvironment, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
beforeAll(async () => {
  t = await startOidcApp();
  env = await oidcEnvironment(t);
});
afterAll(() => t.close());

describe('oidc-provider context patch', () => {
  it('is applied to the loaded library: one shared accessor, undefined before the provider routes a request', async () => {
    const provider = await t.app.oidc.get(env.environmentId);
    // `unmatched`: an oidc-provider update changed the text the hook replaces (api/oidc/context-patch.ts).
    expect(oidcProviderContextPatch()).not.toBe('unmatched');
    const accessor = Object.getOwnPropertyDescriptor(provider.context, 'oidc');
    expect(accessor?.get).toBeTypeOf('function');
    expect((Object.create(provider.context) as { oidc?: unknown }).oidc).toBeUndefined();
  });

  it('serves requests through it: a token, its introspection, and an error answer', async () => {
    const basic = Buffer.from(`${env.clientId}:${env.clientSecret}`).toString('base64');
    const headers = { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' };
    const token = await fetch(`${env.issuer}/token`, { method: 'POST', headers, body: 'grant_type=client_credentials' });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const introspected = await fetch(`${env.issuer}/token/introspection`, { method: 'POST', headers, body: `token=${access_token}` });
    expect(await introspected.json()).toMatchObject({ active: true, client_id: env.clientId });
    const refused = await fetch(`${env.issuer}/token`, { method: 'POST', headers, body: 'grant_type=password' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });
});
