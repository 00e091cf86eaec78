// The SSO pages (refused, expired, not available) speak the interaction's locale when the answer belongs to a known
// interaction (its ui_locales), else the browser's Accept-Language.
import type * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { authorize, type Stop } from '../helpers/mfa-sign-in.ts';
import { saveConnection, scriptedIssuer } from '../helpers/upstream-oidc.ts';

let t: OidcTestApp;
let token: string;
let down: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
let upstream: Awaited<ReturnType<typeof scriptedIssuer>>;
beforeAll(async () => {
  t = await startOidcApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  upstream = await scriptedIssuer();
});
beforeEach(async () => {
  down = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(down.issuer, down.clientId, null);
});
afterAll(async () => {
  await upstream.close();
  await t.close();
});

const interactionOf = (stop: Stop) => /^(.*\/interaction\/[^/?]+)/.exec(stop.at)![1]!;

describe('SSO pages in the interaction’s locale', () => {
  it('shows a refusal at the callback in the ui_locales of the interaction the state names (de, fr)', async () => {
    const connectionId = await saveConnection(t, token, down.tenantId, down.environmentId, 'oidc', {
      issuer: upstream.issuer,
      clientId: 'rp',
      clientSecret: 's',
      provisioning: 'link_only',
    });
    const expected: Record<string, string> = { de: 'Hier gibt es noch kein Konto für Sie.', fr: 'Vous n’avez pas encore de compte ici.' };
    for (const locale of ['de', 'fr']) {
      const a = await authorize(rp, { ui_locales: locale });
      const start = new URL((await a.jar.fetch(`${interactionOf(a.stop)}/sso/${connectionId}`)).headers.get('location')!);
      upstream.answer(`nobody-${locale}`, 'rp', start.searchParams.get('nonce')!);
      const callback = new URL(start.searchParams.get('redirect_uri')!);
      callback.search = new URLSearchParams({ code: 'c', state: start.searchParams.get('state')! }).toString();
      // The browser prefers English: the interaction's ui_locales wins.
      const refused = await fetch(callback, { redirect: 'manual', headers: { 'accept-language': 'en' } });
      expect(refused.status).toBe(400);
      const body = await refused.text();
      expect(body).toContain(`<html lang="${locale}">`);
      expect(body).toContain(expected[locale]);
    }
  });

  it('follows Accept-Language when no interaction is known, and the interaction at the start', async () => {
    const unknownState = await fetch(`${t.baseUrl}/v1/sso/${down.environmentId}/oidc/callback?state=nope&code=c`, {
      redirect: 'manual',
      headers: { 'accept-language': 'fr-FR,fr;q=0.9' },
    });
    expect(unknownState.status).toBe(400);
    const body = await unknownState.text();
    expect(body).toContain('<html lang="fr">');
    expect(body).toContain('La réponse du fournisseur d’identité n’a pas pu être acceptée.');

    const a = await authorize(rp, { ui_locales: 'de' });
    const unknownConnection = await a.jar.fetch(`${interactionOf(a.stop)}/sso/${crypto.randomUUID()}`);
    expect(unknownConnection.status).toBe(404);
    expect(await unknownConnection.text()).toContain('Diese Anmeldeverbindung existiert nicht oder ist nicht aktiv.');

    const login = await fetch(`${t.baseUrl}/v1/sso/${down.environmentId}/saml/login`, { headers: { 'accept-language': 'de' } });
    expect(login.status).toBe(404);
    expect(await login.text()).toContain('Anmeldung nicht verfügbar');
  });
});
