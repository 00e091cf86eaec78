// "Forgot your password?" on the sign-in pages: the link reaches the user's email through the sender, its page sets
// the new password, and the new password signs in; whoever asks sees the same page, whether an account matched.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { codeFlowThroughPages, inputValue, postForm, setPassword } from '../helpers/sign-in.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

async function passwordPage(identifier: string, uiLocales?: string) {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    ...(uiLocales ? { ui_locales: uiLocales } : {}),
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const csrf = inputValue(await (await jar.fetch(at)).text(), 'csrf')!;
  const body = await (await postForm(jar, `${at}/identifier`, { csrf, identifier })).text();
  return { at, jar, csrf, body };
}

const reset = async (identifier: string) => {
  const p = await passwordPage(identifier);
  const form = await p.jar.fetch(`${p.at}/reset`);
  expect(form.status).toBe(200);
  const res = await postForm(p.jar, `${p.at}/reset`, { csrf: p.csrf, identifier });
  return { status: res.status, body: await res.text(), at: p.at };
};

describe('password reset from the sign-in pages', () => {
  it('sends a one-time link to the user’s email; its page sets the password, which then signs in', async () => {
    const user = await directoryUser(t, env.environmentId);
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, 'the forgotten one');
    const p = await passwordPage(user.userName);
    expect(p.body).toContain(`<a href="${new URL(p.at).pathname}/reset">Forgot your password?</a>`);

    const sent = await reset(user.userName);
    expect(sent.status).toBe(200);
    expect(sent.body).toContain('If an account matches, a link to choose a new password is on its way.');
    const message = await waitForMessage(t.app, user.userName, 'password_reset');
    expect(message.subject).toBe('Reset your password');
    const link = new RegExp(`${env.issuer}/password/[A-Za-z0-9_-]{43}`).exec(message.text)![0];
    const set = await postForm(new CookieJar(), link, { password: 'remembered now', confirmation: 'remembered now' });
    expect(set.status).toBe(200);
    const { tokens } = await codeFlowThroughPages(rp, { userName: user.userName, password: 'remembered now' });
    expect(tokens.claims()!.sub).toBe(user.id);
    // The link works once.
    expect((await postForm(new CookieJar(), link, { password: 'again and again', confirmation: 'again and again' })).status).toBe(410);

    const events = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).map((e) => [e.type, e.data.via ?? null]);
    expect(events).toEqual(
      expect.arrayContaining([
        ['user.password_link_created', 'reset'],
        ['user.password_set', 'link'],
      ]),
    );
    expect(JSON.stringify(events)).not.toContain(link.split('/').pop()!);
  });

  it('answers an unknown identifier and an inactive user with the same page, sending nothing', async () => {
    const inactive = await directoryUser(t, env.environmentId);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${inactive.id}/deactivate`,
      headers: bearer(token),
    });
    expect(res.statusCode).toBe(200);
    const known = await directoryUser(t, env.environmentId);
    const shape = (r: { body: string; at: string }) => r.body.replace(/nonce-[^']+|nonce="[^"]+"/g, 'N').replaceAll(new URL(r.at).pathname, 'AT');
    const answers = [await reset(known.userName), await reset('nobody@example.com'), await reset(inactive.userName)];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(shape(answers[1]!)).toBe(shape(answers[0]!));
    expect(shape(answers[2]!)).toBe(shape(answers[0]!));
    await waitForMessage(t.app, known.userName, 'password_reset');
    expect(messagesTo(t.app, 'nobody@example.com')).toEqual([]);
    expect(messagesTo(t.app, inactive.userName)).toEqual([]);
  });

  it('writes the message in the sign-in’s locale', async () => {
    const user = await directoryUser(t, env.environmentId);
    const p = await passwordPage(user.userName, 'de');
    const res = await postForm(p.jar, `${p.at}/reset`, { csrf: p.csrf, identifier: user.userName });
    expect(await res.text()).toContain('<title>Prüfen Sie Ihre E-Mails</title>');
    const message = await waitForMessage(t.app, user.userName, 'password_reset');
    expect(message.subject).toBe('Passwort zurücksetzen');
    // The link's page follows Accept-Language.
    const link = /https?:\/\/\S+\/password\/[A-Za-z0-9_-]{43}/.exec(message.text)![0];
    const page = await fetch(link, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    expect(page.headers.get('content-language')).toBe('de');
    expect(await page.text()).toContain('<title>Passwort festlegen</title>');
    const differ = await postForm(new CookieJar(), link, { password: 'ein neues Passwort', confirmation: 'ein anderes' });
    expect(differ.status).toBe(400);
    expect(await differ.text()).toContain('<title>Set your password</title>');
    const french = await fetch(link, {
      method: 'POST',
      headers: { 'accept-language': 'fr', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=short&confirmation=short',
    });
    expect(await french.text()).toContain('Le mot de passe doit comporter au moins 8 caractères.');
  });
});
