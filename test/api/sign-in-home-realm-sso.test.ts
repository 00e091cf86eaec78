// A domain that must sign in through one connection (`requiredForDomains`) cannot be signed in through another
// connection either: an upstream identity with an email at that domain, from an OIDC upstream (a second environment
// of this service), is refused `sso_required`, audited, with nothing created or linked; the required connection
// itself, and other domains through the same upstream, sign in as before.
import { sql } from 'slonik';
import { z } from 'zod';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword, signInThroughPages } from '../helpers/sign-in.ts';
import { samlIdp } from '../helpers/saml-idp.ts';
import { saveConnection, UPSTREAM_PASSWORD, upstreamOidc } from '../helpers/upstream-oidc.ts';

let t: OidcTestApp;
let token: string;
let down: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
});
beforeEach(async () => {
  down = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(down.issuer, down.clientId, null);
});
afterAll(() => t.close());

const users = () => t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM users WHERE environment_id = ${down.environmentId}`);

/** The downstream interaction sent upstream through `connectionId`, signed in there: the downstream callback's answer. */
async function throughUpstream(connectionId: string, email: string) {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const start = await jar.fetch(`${at}/sso/${connectionId}`);
  expect(start.status).toBe(303);
  const { callback } = await signInThroughPages(start.headers.get('location')!, { userName: email, password: UPSTREAM_PASSWORD });
  return jar.fetch(callback.href);
}

it('refuses another connection for an email whose domain requires SSO, audited; other domains still sign in through it', async () => {
  const domain = `acme-${crypto.randomUUID().slice(0, 8)}.com`;
  const created = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${down.tenantId}/domains`,
    headers: bearer(token),
    payload: { domain, validationMethod: 'dns_txt' },
  });
  expect(created.statusCode).toBe(201);
  await t.pool.query(sql.unsafe`UPDATE tenant_domains SET verified = true, validated_at = now() WHERE tenant_id = ${down.tenantId} AND domain = ${domain}`);
  const required = await saveConnection(t, token, down.tenantId, down.environmentId, 'saml', {
    metadataXml: samlIdp().metadataXml,
    domains: [domain],
    requiredForDomains: true,
  });
  const social = await upstreamOidc(t, token, down, {}, `jane@${domain}`);
  const before = await users();

  const refused = await throughUpstream(social.connectionId, social.email);
  expect(refused.status).toBe(400);
  expect(await refused.text()).toContain('Your organization requires you to sign in with its own sign-in.');
  expect(await users()).toBe(before);
  const events = await tenantEvents(t, down.tenantId, { environmentId: down.environmentId });
  expect(events.filter((e) => e.type === 'user.linked')).toEqual([]);
  expect(events.filter((e) => e.type === 'user.sign_in_failed').map((e) => e.data)).toEqual([
    expect.objectContaining({ reason: 'sso_required', connectionId: social.connectionId, login: `jane@${domain}`, userId: null }),
  ]);
  expect(required).not.toBe(social.connectionId);

  // Not required: the same upstream signs in a user of an unbound domain.
  const other = await directoryUser(t, social.environmentId);
  await setPassword(t, token, down.tenantId, social.environmentId, other.id, UPSTREAM_PASSWORD);
  const accepted = await throughUpstream(social.connectionId, other.userName);
  expect(accepted.status, await accepted.clone().text()).toBe(303);
});
