// The access-requests page's actions over HTTP, as a browser without JavaScript uses them: users sign in through the
// hosted sign-in pages (a cookie jar), then post the page's forms with its CSRF token. A requester cancels, is denied
// with a reason, is refused past the policy's maximum (the field named), is approved, activates and ends its grant
// early; someone who approves nothing is refused a decision; the state endpoint's version follows. The audit names the
// users as actors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { tenantEvents } from '../helpers/events.ts';
import { CookieJar, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, pageKind, postForm, setPassword } from '../helpers/sign-in.ts';

const PASSWORD = 'correct horse battery';
let t: OidcTestApp;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;
let page: string;

beforeAll(async () => {
  t = await startOidcApp();
  const token = await t.token();
  env = await elevateEnvironment(t, token);
  await Promise.all(['alice', 'bob', 'erin'].map((name) => setPassword(t, token, env.tenantId, env.environmentId, env.users[name]!, PASSWORD)));
  page = `${t.issuer(env.environmentId)}/access`;
});
afterAll(() => t?.close());

const actionOf = (body: string, label: string) => {
  for (const form of body.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)) {
    if (form[2]!.includes(`>${label}</button>`)) return form[1]!.replace(/&amp;/g, '&');
  }
  throw new Error(`no "${label}" form`);
};

/** A jar signed in to the page as `userName` through the hosted pages; `post` sends a form of the page with its CSRF token. */
async function signIn(userName: string) {
  const jar = new CookieJar();
  let response = await jar.fetch(page);
  let at = page;
  for (let hops = 0; hops < 20; hops++) {
    const location = response.headers.get('location');
    const body = await response.text();
    if (location) {
      at = new URL(location, at).href;
      response = await jar.fetch(at);
      continue;
    }
    if (at.startsWith(page)) break;
    const csrf = inputValue(body, 'csrf')!;
    const kind = pageKind(body);
    const [label, fields] =
      kind === 'login'
        ? ['Continue', { identifier: userName }]
        : kind === 'password'
          ? ['Sign in', { identifier: userName, password: PASSWORD }]
          : ['Allow', {}];
    response = await postForm(jar, new URL(actionOf(body, label), at).href, { csrf, ...fields });
  }
  const show = async () => (await jar.fetch(page)).text();
  expect(await show()).toContain(`Signed in as <strong>${userName}</strong>`);
  const post = async (path: string, fields: Record<string, string> = {}) => {
    const csrf = inputValue(await show(), 'csrf')!;
    const res = await postForm(jar, `${page}${path}`, { csrf, ...fields });
    return { status: res.status, location: res.headers.get('location'), body: await res.text() };
  };
  const version = async () => ((await (await jar.fetch(`${page}/state`)).json()) as { version: string }).version;
  return { show, post, version };
}

const requestIdIn = (body: string) => /data-request-state="([0-9a-f-]{36})"/.exec(body)![1]!;

describe('access-requests page actions', () => {
  it('cancels, is denied with a reason, activates and ends a grant early; only approvers decide', async () => {
    const policyId = await env.policy({ maxDurationSeconds: 600, name: 'Orders admin' });
    const [alice, bob, erin] = await Promise.all([signIn('alice'), signIn('bob'), signIn('erin')]);
    const ask = (fields: Record<string, string> = {}) => alice.post('/requests', { policyId, duration: '5', unit: 'minutes', ...fields });

    expect(await ask()).toMatchObject({ status: 303, location: `/v1/oidc/${env.environmentId}/access?done=requested` });
    const first = requestIdIn(await alice.show());
    expect(await alice.post(`/requests/${first}/cancel`)).toMatchObject({ status: 303, location: expect.stringMatching(/\?done=cancelled$/) });
    expect(await alice.show()).toContain(`data-request-state="${first}">Cancelled<`);

    await ask({ justification: 'Refund run' });
    const second = requestIdIn(await alice.show());
    expect(await bob.show()).toContain('alice: Orders admin');
    const refused = await erin.post(`/requests/${second}/approve`);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('The user is not an approver of the policy &quot;Orders admin&quot;.');
    const before = await alice.version();
    expect(await bob.post(`/requests/${second}/deny`, { reason: 'Use the runbook instead' })).toMatchObject({ status: 303 });
    expect(await alice.version()).not.toBe(before);
    const denied = await alice.show();
    expect(denied).toContain(`data-request-state="${second}">Denied<`);
    expect(denied).toContain('Approver’s reason: “Use the runbook instead”');
    expect((await bob.post(`/requests/${second}/approve`)).body).toContain('The request is already denied.');

    const tooLong = await ask({ duration: '11' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toContain('aria-invalid="true"');
    expect(tooLong.body).toContain('must be at most 600 seconds (the policy&#39;s maximum)');
    expect(tooLong.body).toContain('value="11"');

    await ask({ duration: '10' });
    const third = requestIdIn(await alice.show());
    expect(await bob.post(`/requests/${third}/approve`, { reason: 'ok' })).toMatchObject({ location: expect.stringMatching(/\?done=approved$/) });
    const grantId = /grants\/([0-9a-f-]{36})\/activate/.exec(await alice.show())![1]!;
    expect(await alice.post(`/grants/${grantId}/activate`)).toMatchObject({ location: expect.stringMatching(/\?done=activated$/) });
    expect((await env.mayDelete()).decision).toBe(true);
    expect(await bob.show()).toMatch(/alice holds role admin \(Orders admin\): active until/);
    expect(await alice.post(`/grants/${grantId}/revoke`)).toMatchObject({ location: expect.stringMatching(/\?done=ended$/) });
    expect((await env.mayDelete()).decision).toBe(false);
    expect(await alice.show()).toContain(`data-request-state="${third}">Ended early<`);

    const events = await tenantEvents(t, env.tenantId, { environmentId: env.environmentId });
    const who = (id: string | null) => Object.entries(env.users).find(([, user]) => user === id)?.[0];
    expect(events.filter((e) => e.type.startsWith('elevate.request.') || e.type.startsWith('elevate.grant.')).map((e) => [e.type, who(e.actor.id)])).toEqual([
      ['elevate.request.created', 'alice'],
      ['elevate.request.cancelled', 'alice'],
      ['elevate.request.created', 'alice'],
      ['elevate.request.denied', 'bob'],
      ['elevate.request.created', 'alice'],
      ['elevate.grant.created', 'bob'],
      ['elevate.request.approved', 'bob'],
      ['elevate.grant.activated', 'alice'],
      ['elevate.grant.revoked', 'alice'],
    ]);
  });
});
