// The sign-in page framework over HTTP: the locale of every page (ui_locales, then Accept-Language, then the
// environment's default, else en) with <html lang> and Content-Language, and identifier first (the same page for
// known and unknown identifiers, errors announced and focused).
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, pageKind, postForm } from '../helpers/sign-in.ts';
import { acceptedLanguages, chooseLocale, LOCALES, messagesOf, type Messages } from '../../api/oidc/pages/i18n/index.ts';

let t: OidcTestApp;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

async function identifierPage(parameters: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    ...parameters,
  });
  const authorize = await jar.fetch(url);
  const at = new URL(authorize.headers.get('location')!, url).href;
  const page = await jar.fetch(at, { headers });
  const body = await page.text();
  return { at, jar, page, body, csrf: inputValue(body, 'csrf')! };
}

describe('the locale of the sign-in pages', () => {
  it('follows ui_locales (its first supported tag), then Accept-Language by q-value, else en; sets <html lang> and Content-Language', async () => {
    const cases: [Record<string, string>, Record<string, string>, string, string][] = [
      [{ ui_locales: 'de' }, {}, 'de', 'Anmelden'],
      [{ ui_locales: 'es fr-CA de' }, { 'accept-language': 'de' }, 'fr', 'Se connecter'],
      [{}, { 'accept-language': 'de-DE' }, 'de', 'Anmelden'],
      [{}, { 'accept-language': 'es, fr;q=0.4, de;q=0.8' }, 'de', 'Anmelden'],
      [{}, { 'accept-language': 'es, ja' }, 'en', 'Sign in'],
      [{ ui_locales: 'es' }, {}, 'en', 'Sign in'],
    ];
    for (const [parameters, headers, locale, title] of cases) {
      const { page, body } = await identifierPage(parameters, headers);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-language'), JSON.stringify([parameters, headers])).toBe(locale);
      expect(body).toContain(`<html lang="${locale}">`);
      expect(body).toContain(`<title>${title}</title>`);
    }
  });

  it('keeps the locale through the form posts, and answers the 403 and 400 pages in it', async () => {
    const { at, jar, csrf } = await identifierPage({ ui_locales: 'fr' });
    const next = await postForm(jar, `${at}/identifier`, { csrf, identifier: 'someone' });
    expect(next.headers.get('content-language')).toBe('fr');
    expect(await next.text()).toContain('<title>Saisissez votre mot de passe</title>');
    const forged = await postForm(jar, `${at}/identifier`, { csrf: 'forged', identifier: 'someone' });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('Le formulaire n’a pas été envoyé par cette page de connexion.');
    const expired = await fetch(`${t.baseUrl}/v1/oidc/${env.environmentId}/interaction/unknown`, { headers: { 'accept-language': 'de' } });
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('Diese Anmeldung ist abgelaufen oder ungültig.');
  });

  it('has every message in every locale, none empty, each with the placeholders of the English one', () => {
    const en = messagesOf('en');
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const locale of LOCALES) {
      const messages = messagesOf(locale);
      expect(Object.keys(messages).sort(), locale).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(messages)) {
        expect(text.trim(), `${locale}.${key}`).not.toBe('');
        expect(placeholders(text), `${locale}.${key}`).toEqual(placeholders(en[key as keyof Messages]));
      }
    }
    // A catalog missing a key does not compile.
    // @ts-expect-error `fr` without `signInTitle` is not Messages
    const partial: Messages = { ...messagesOf('fr'), signInTitle: undefined };
    expect(partial.signInTitle).toBeUndefined();
  });

  it('parses Accept-Language q-values and ui_locales tags', () => {
    expect(acceptedLanguages('fr;q=0.5, de-CH, *;q=0.1, en;q=0')).toEqual(['de-CH', 'fr;q=0.5'.split(';')[0]]);
    expect(chooseLocale('  de ', undefined)).toBe('de');
    expect(chooseLocale(undefined, undefined, 'fr')).toBe('fr');
    expect(chooseLocale(undefined, 'xx', 'zz')).toBe('en');
  });
});

describe('identifier first', () => {
  it('asks only for the identifier, then answers a known and an unknown identifier with the same page and status', async () => {
    const token = await t.token();
    const user = await directoryUser(t, env.environmentId);
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/password`,
      headers: bearer(token),
      payload: { password: 'correct horse battery' },
    });
    expect(res.statusCode).toBe(204);
    const first = await identifierPage();
    expect(pageKind(first.body)).toBe('login');
    expect(first.body).not.toContain('type="password"');
    expect(first.body).toContain('<label for="identifier">User name or email</label>');

    const answers = [];
    for (const identifier of [user.userName, 'nobody@example.com']) {
      const { at, jar, csrf } = await identifierPage();
      const next = await postForm(jar, `${at}/identifier`, { csrf, identifier });
      const body = await next.text();
      const same = body
        .replaceAll(identifier, 'X')
        .replaceAll(new URL(at).pathname, 'AT')
        .replaceAll(csrf, 'CSRF')
        .replace(/nonce-[^']+'|nonce="[^"]+"/g, 'NONCE')
        .replace(/name="formStamp" value="[^"]+"/, 'STAMP'); // the render time (bot detection's form stamp)
      answers.push({ status: next.status, same, kind: pageKind(body) });
    }
    expect(answers[0]).toMatchObject({ status: 200, kind: 'password' });
    expect(answers[1]).toEqual(answers[0]);
  });

  it('refuses an empty identifier with the error announced, focused and tied to the field', async () => {
    const { at, jar, csrf } = await identifierPage();
    const res = await postForm(jar, `${at}/identifier`, { csrf, identifier: '   ' });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('<p id="error" class="error" role="alert" tabindex="-1" autofocus>Enter your user name or email.</p>');
    expect(body).toMatch(
      /<input id="identifier" name="identifier" type="text" autocomplete="username" required value="" aria-invalid="true" aria-describedby="error" \/>/,
    );
  });
});
