// The device-risk policy and passkeys (PUBLIC_BASE_URL on localhost, where browsers allow passkeys): a passkey
// sign-in is never stepped up, but records its device, so a password sign-in later from the same browser is
// recognised, and from another browser is not.
import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPasskeyCeremonies } from '../../api/passkeys/index.ts';
import { bearer } from '../helpers/app.ts';
import { Browser } from '../helpers/device-risk.ts';
import { tenantEvents } from '../helpers/events.ts';
import { authorize, password, toCallback } from '../helpers/mfa-sign-in.ts';
import { directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, setPassword } from '../helpers/sign-in.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

const PASSWORD = 'correct horse battery';
let t: OidcTestApp;
beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error' }, 'localhost');
});
afterAll(() => t.close());

describe('device risk and passkeys', () => {
  it('steps no passkey sign-in up, and knows its device afterwards', async () => {
    const token = await t.token();
    const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
    const rp = await relyingParty(env.issuer, env.clientId, null);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/device-risk-policy`,
      headers: bearer(token),
      payload: { challengeUnrecognized: true },
    });
    expect(put.statusCode).toBe(200);
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const passkeyEnv = { environmentId: env.environmentId, tenantId: env.tenantId };
    const ceremonies = createPasskeyCeremonies(t.pool, t.config.publicBaseUrl);
    const authenticator = new SoftAuthenticator({ origin: t.baseUrl });
    const registration = await ceremonies.registrationOptions(passkeyEnv, user.id);
    expect((await ceremonies.verifyRegistration(passkeyEnv, user.id, registration.challengeId, authenticator.create(registration.options))).ok).toBe(true);
    // A first device, by password, so that the passkey's browser is not the user's first.
    const first = new Browser();
    const home = await authorize(rp, {}, first);
    await toCallback(first, await password(first, home.stop, user.userName, PASSWORD));

    const browser = new Browser();
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const at = new URL((await browser.fetch(url)).headers.get('location')!, url).href;
    const csrf = inputValue(await (await browser.fetch(at)).text(), 'csrf')!;
    const postJson = (path: string, body: object) =>
      browser.fetch(`${at}${path}`, { method: 'POST', body: JSON.stringify({ csrf, ...body }), headers: { 'content-type': 'application/json' } });
    const { challengeId, options } = (await (await postJson('/passkey/options', {})).json()) as { challengeId: string; options: never };
    const verified = await postJson('/passkey/verify', { challengeId, response: authenticator.get(options) });
    expect(verified.status).toBe(200);
    expect(browser.received.find((line) => line.startsWith('iam_device='))).toMatch(/; HttpOnly; SameSite=Lax$/);
    const rows = await t.pool.oneFirst(
      sql.unsafe`SELECT count(*)::int FROM known_devices WHERE environment_id = ${env.environmentId} AND user_id = ${user.id}`,
    );
    expect(rows).toBe(2);

    // The passkey's browser signs in by password without a step-up.
    const again = await authorize(rp, {}, browser.forgetSessions());
    const after = await password(browser, again.stop, user.userName, PASSWORD);
    expect(after.at).not.toMatch(/\/mfa/);
    const steppedUp = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === 'protection.stepped_up');
    expect(steppedUp).toEqual([]);
  });
});
