// Forms on the hosted sign-up page over HTTP: the published forms attached to `pre_signup` are rendered in the page's
// locale, their answers checked on the server (400 page naming the label, nothing created) and stored on the new
// user under `attributes.forms.<key>`; a draft never shows until it is published; a disabled attachment is not shown.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';
import { CookieJar, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, postForm } from '../helpers/sign-in.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error' });
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
  expect((await api('PUT', '/settings/sign-in', { signUpEnabled: true })).status).toBe(200);
});
afterAll(() => t.close());

async function api(method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) {
  const url = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}${path}`;
  const res = await t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.json() };
}
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);

const COMPANY = {
  name: 'company',
  type: 'text',
  label: { en: 'Company', de: 'Firma', fr: 'Entreprise' },
  required: true,
  validation: { pattern: '[A-Za-z ]+' },
};
const SIZE = { name: 'size', type: 'number', label: 'Team size', validation: { min: 1, max: 1000 } };
const TERMS = { name: 'terms', type: 'boolean', label: { en: 'I accept the terms', de: 'Ich akzeptiere die Bedingungen' }, required: true };
const ROLE = { name: 'role', type: 'select', label: 'Role', options: ['dev', { value: 'ops', label: { en: 'Operations', de: 'Betrieb' } }] };
const PHONE = { name: 'phone', type: 'phone', label: 'Phone' };

/** Saves (and by default publishes) a form and attaches it to sign-up. */
async function attachedForm(key: string, fields: object[], options: { status?: string; rank?: number; enabled?: boolean; title?: string } = {}) {
  const definition = { fields, ...(options.title ? { title: options.title } : {}) };
  const saved = await api('POST', '/forms', { name: key, key, definition, status: options.status ?? 'published' });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  const attached = await api('POST', '/form-attachments', { formId: saved.body.form.id, hookType: 'pre_signup', rank: options.rank, enabled: options.enabled });
  expect(attached.status).toBe(201);
  return saved.body.form as { id: string; key: string };
}

async function signUpPage(locale?: string) {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    ...(locale ? { ui_locales: locale } : {}),
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const csrf = inputValue(await (await jar.fetch(at)).text(), 'csrf')!;
  const page = squash(await (await jar.fetch(`${at}/sign-up`)).text());
  return { jar, at, csrf, page };
}

/** The page's markup with its whitespace between tags and attributes collapsed (the templates are formatted code). */
const squash = (markup: string) =>
  markup
    .replace(/\s+/g, ' ')
    .replace(/>\s+</g, '><')
    .replace(/\s+(\/?>)/g, '$1');

const email = () => `forms-${crypto.randomUUID().slice(0, 8)}@example.com`;
const PASSWORD = 'a brand new password';

describe('forms on the sign-up page', () => {
  it('renders nothing more while no published form is attached, and a draft never shows', async () => {
    const plain = await signUpPage();
    expect(plain.page).not.toContain('name="form.');
    await attachedForm('draft_only', [COMPANY], { status: 'draft' });
    expect((await signUpPage()).page).not.toContain('name="form.');
  });

  it('renders the attached forms in rank order with labels in the page locale, refuses bad answers naming the label and keeps them', async () => {
    await attachedForm('second', [PHONE], { rank: 2 });
    await attachedForm('signup_extra', [COMPANY, SIZE, TERMS, ROLE], { rank: 1, title: 'About you' });
    await attachedForm('hidden', [{ name: 'secret', type: 'text', label: 'Secret' }], { enabled: false });

    const s = await signUpPage();
    expect(s.page).toContain(squash('<fieldset><legend>About you</legend>'));
    expect(s.page).toContain(
      squash(
        '<label for="form-signup_extra-company">Company</label> <input id="form-signup_extra-company" name="form.signup_extra.company" required type="text" value="" />',
      ),
    );
    expect(s.page).toContain(
      squash(
        '<label for="form-signup_extra-size">Team size (optional)</label> <input id="form-signup_extra-size" name="form.signup_extra.size" type="number" value="" min="1" max="1000" step="any" />',
      ),
    );
    expect(s.page).toContain(
      squash(
        '<label class="check"><input id="form-signup_extra-terms" name="form.signup_extra.terms" required type="checkbox" value="true" /> I accept the terms</label>',
      ),
    );
    expect(s.page).toContain(squash('<option value="">Choose…</option><option value="dev">dev</option><option value="ops">Operations</option>'));
    expect(s.page.indexOf('form.signup_extra.company')).toBeLessThan(s.page.indexOf('form.second.phone'));
    expect(s.page).not.toContain(squash('form.hidden.secret'));
    const de = await signUpPage('de');
    expect(de.page).toContain(squash('>Firma</label>'));
    expect(de.page).toContain(squash('> Ich akzeptiere die Bedingungen</label>'));
    expect(de.page).toContain(squash('<option value="ops">Betrieb</option>'));

    const address = email();
    const bad = await postForm(s.jar, `${s.at}/sign-up`, {
      csrf: s.csrf,
      email: address,
      password: PASSWORD,
      'form.signup_extra.company': 'Acme 42',
      'form.signup_extra.size': '0',
      'form.signup_extra.role': 'boss',
      'form.second.phone': '12',
    });
    expect(bad.status).toBe(400);
    const page = squash(await bad.text());
    expect(page).toContain(
      [
        '<li>Company is not in the expected format.</li>',
        '<li>Team size must be at least 1.</li>',
        '<li>I accept the terms is required.</li>',
        '<li>Role: choose one of the options.</li>',
        '<li>Phone must be a phone number with its country code, e.g. +14155552671.</li>',
      ].join(''),
    );
    expect(page).toMatch(
      /id="form-signup_extra-company" name="form.signup_extra.company" required aria-invalid="true" aria-describedby="error" type="text" value="Acme 42"/,
    );
    expect(page).toContain(squash(`value="${address}" />`)); // the error block has the focus, not the email

    expect(page).toContain(squash('value="0"'));
    expect(messagesTo(t.app, address)).toEqual([]);
    expect(await eventsOf('directory.user.created')).toEqual([]);

    const refusedInGerman = await postForm(de.jar, `${de.at}/sign-up`, { csrf: de.csrf, email: address, password: PASSWORD });
    expect(squash(await refusedInGerman.text())).toContain('<li>Firma ist erforderlich.</li>');
  });

  it('stores the answers on the new user under attributes.forms.<key>, and its created event names the form key and version', async () => {
    const form = await attachedForm('signup_extra', [COMPANY, SIZE, TERMS, ROLE, PHONE]);
    const s = await signUpPage();
    const address = email();
    const res = await postForm(s.jar, `${s.at}/sign-up`, {
      csrf: s.csrf,
      email: address,
      password: PASSWORD,
      'form.signup_extra.company': ' Acme Corp ',
      'form.signup_extra.size': '42',
      'form.signup_extra.terms': 'true',
      'form.signup_extra.role': 'ops',
      'form.signup_extra.phone': '+1 415 555 2671',
    });
    expect(res.status).toBe(200);
    await waitForMessage(t.app, address, 'sign_up_code');
    const [created] = await eventsOf('directory.user.created');
    const answers = { company: 'Acme Corp', size: 42, terms: true, role: 'ops', phone: '+14155552671' };
    expect(created!.data).toEqual({
      user: expect.objectContaining({ userName: address, attributes: { forms: { signup_extra: answers } } }),
      forms: [{ formId: form.id, key: 'signup_extra', version: 1 }],
    });
    const user = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${(created!.data.user as { id: string }).id}`,
      headers: bearer(token),
    });
    expect(user.json().user.attributes).toEqual({ forms: { signup_extra: answers } });

    // Signing up again before verifying (a take-over) replaces the answers.
    const again = await signUpPage();
    const retaken = await postForm(again.jar, `${again.at}/sign-up`, {
      csrf: again.csrf,
      email: address,
      password: PASSWORD,
      'form.signup_extra.company': 'Other',
      'form.signup_extra.terms': 'on',
    });
    expect(retaken.status).toBe(200);
    const [updated] = await eventsOf('directory.user.updated');
    expect(updated!.data).toMatchObject({
      user: { attributes: { forms: { signup_extra: { company: 'Other', terms: true } } } },
      forms: [{ key: 'signup_extra', version: 1 }],
    });
  });

  it('keeps rendering the published version while a new draft is edited, and the new one once it is published', async () => {
    const form = await attachedForm('signup_extra', [COMPANY]);
    const draft = await api('POST', '/forms', { id: form.id, name: 'x', key: 'signup_extra', definition: { fields: [ROLE] } });
    expect(draft.body.form).toMatchObject({ status: 'draft', version: 2, publishedVersion: 1 });
    const before = await signUpPage();
    expect(before.page).toContain('form.signup_extra.company');
    expect(before.page).not.toContain('form.signup_extra.role');
    await api('POST', '/forms', { id: form.id, name: 'x', key: 'signup_extra', definition: { fields: [ROLE] }, status: 'published' });
    const after = await signUpPage();
    expect(after.page).not.toContain('form.signup_extra.company');
    expect(after.page).toContain('form.signup_extra.role');
    // The page posted before the publication is checked against what is attached now: its answers to v1 are not asked any more.
    const res = await postForm(before.jar, `${before.at}/sign-up`, { csrf: before.csrf, email: email(), password: PASSWORD, 'form.signup_extra.role': 'dev' });
    expect(res.status).toBe(200);
    const [created] = await eventsOf('directory.user.created');
    expect(created!.data.forms).toEqual([{ formId: form.id, key: 'signup_extra', version: 2 }]);
  });
});
