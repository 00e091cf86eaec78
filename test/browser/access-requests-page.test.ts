// The access-requests page in Chromium: alice signs in through the environment's hosted sign-in, is refused with the
// server's message for a ticket that does not match the policy, requests access; bob, an approver, signs in in a
// second browser context and approves with a reason; alice's page follows the state live, she activates the grant,
// which allows an AuthZEN decision, and the grant expires (4 s), which denies it again. axe on every page; the audit
// names the users as actors. UPDATE_SCREENSHOTS=1 writes docs/images/access-request.png and access-approve.png.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, expectAccessible, heading, launchBrowser } from '../helpers/browser.ts';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { setPassword } from '../helpers/sign-in.ts';

const PASSWORD = 'correct horse battery';
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve(import.meta.dirname, '../../docs/images') : null;
let t: OidcTestApp;
let browser: Browser;

beforeAll(async () => {
  [t, browser] = await Promise.all([startOidcApp(), launchBrowser()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), t?.close()]);
});

/** A new browser context signed in to the page as `userName` (identifier, password, consent on the hosted pages). */
async function signIn(url: string, userName: string, check: boolean) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(url);
  expect(await heading(page)).toBe('Sign in');
  await page.getByLabel('User name or email').fill(userName);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => heading(page)).toBe('Allow access');
  if (check) await expectAccessible(page);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(url);
  expect(await heading(page)).toBe('Access requests');
  return { context, page };
}

const stateOf = (page: Page) => page.locator('[data-request-state]').first().textContent();

describeBrowser('access-requests page in Chromium', () => {
  it('a requester asks, an approver approves in another browser, the grant allows an AuthZEN decision, then expires', async () => {
    const token = await t.token();
    const env = await elevateEnvironment(t, token);
    const policyId = await env.policy({ maxDurationSeconds: 4, requireJustification: true, ticketPattern: '^INC-[0-9]+$', name: 'Production admin' });
    await Promise.all(['alice', 'bob'].map((name) => setPassword(t, token, env.tenantId, env.environmentId, env.users[name]!, PASSWORD)));
    const url = `${t.issuer(env.environmentId)}/access`;

    const alice = await signIn(url, 'alice', true);
    const a = alice.page;
    // Bob signs in meanwhile, in a browser of his own.
    const bobSignedIn = signIn(url, 'bob', false);
    bobSignedIn.catch(() => undefined); // awaited below; not an unhandled rejection if alice's steps fail first
    await expectAccessible(a);
    expect(await a.getByRole('heading', { name: 'Production admin' }).count()).toBe(1);
    // Bob approves and is no requester under this policy: he sees no request form.
    const form = a.locator('form', { has: a.getByRole('button', { name: 'Request access' }) });
    expect(await form.getByLabel('Duration').inputValue()).toBe('4');
    expect(await form.getByLabel('Unit').inputValue()).toBe('seconds');

    // The server's rule, shown at its field.
    await form.getByLabel('Justification (required)').fill('Restore the orders table');
    await form.getByLabel('Ticket').fill('nope');
    await form.getByRole('button', { name: 'Request access' }).click();
    await expect.poll(() => a.getByRole('alert').textContent()).toBe('Your request was not sent: see the field marked below.');
    const ticket = a.getByLabel('Ticket');
    expect(await ticket.getAttribute('aria-invalid')).toBe('true');
    expect(await a.locator('.error', { hasText: 'ticket pattern' }).textContent()).toBe("must match the policy's ticket pattern ^INC-[0-9]+$");
    expect(await a.getByLabel('Justification (required)').inputValue()).toBe('Restore the orders table');
    await expectAccessible(a);
    await ticket.fill('INC-42');
    await a.getByRole('button', { name: 'Request access' }).click();
    await expect.poll(() => a.getByRole('status').textContent()).toContain('Your request was sent to its approvers.');
    expect(await stateOf(a)).toBe('Waiting for approval');

    // A form without the session's CSRF token is refused.
    const forged = await a.request.post(`${url}/requests`, { form: { policyId, duration: '5', unit: 'seconds' } });
    expect(forged.status()).toBe(403);

    const bob = await bobSignedIn;
    const b = bob.page;
    await b.reload();
    expect(await b.getByRole('heading', { name: 'Waiting for your decision' }).count()).toBe(1);
    expect(await b.getByRole('heading', { name: 'alice: Production admin' }).count()).toBe(1);
    await b.getByLabel('Reason').fill('Incident INC-42 is open');
    await expectAccessible(b);
    if (SCREENSHOTS) await b.screenshot({ path: path.join(SCREENSHOTS, 'access-approve.png'), fullPage: true });
    await b.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => b.getByRole('status').textContent()).toContain('You approved the request.');
    expect(await b.getByRole('listitem').filter({ hasText: 'holds role admin' }).textContent()).toMatch(
      /alice.* holds role admin \(Production admin\): approved, to be activated by/,
    );
    await expectAccessible(b);

    // Alice's page follows without her doing anything.
    await expect.poll(() => stateOf(a), { timeout: 10_000 }).toBe('Approved: activate it to use it');
    expect(await a.getByText('Approver’s reason: “Incident INC-42 is open”').count()).toBe(1);
    await expectAccessible(a);
    if (SCREENSHOTS) await a.screenshot({ path: path.join(SCREENSHOTS, 'access-request.png'), fullPage: true });
    expect((await env.mayDelete()).decision).toBe(false);
    await a.getByRole('button', { name: 'Activate for 4 seconds' }).click();
    await expect.poll(() => a.getByRole('status').textContent()).toContain('Your access is active.');
    expect((await env.mayDelete()).decision).toBe(true);
    expect(await stateOf(a)).toBe('Active');

    // The grant ends on its own; the decision and both pages follow.
    await expect.poll(async () => (await env.mayDelete()).decision, { timeout: 15_000 }).toBe(false);
    await Promise.all([a.reload(), b.reload()]);
    expect(await stateOf(a)).toBe('Ended');
    expect(await b.getByText('Nobody holds access under the policies you approve.').count()).toBe(1);

    const actions = (await auditEntries(t, { tenantId: env.tenantId }))
      .filter((e) => e.action.startsWith('elevate.'))
      .map((e) => [e.action, e.actor.id === env.users.alice ? 'alice' : e.actor.id === env.users.bob ? 'bob' : e.actor.type]);
    expect(actions).toEqual([
      ['elevate.policy.create', 'service_account'],
      ['elevate.request.created', 'alice'],
      ['elevate.grant.created', 'bob'],
      ['elevate.request.approved', 'bob'],
      ['elevate.grant.activated', 'alice'],
    ]);
    const events = await tenantEvents(t, env.tenantId, { environmentId: env.environmentId });
    expect(events.filter((e) => e.type === 'oidc_client.created').map((e) => (e.data.client as { clientId: string }).clientId)).toEqual([
      `access-requests-${env.environmentId}`,
    ]);
    expect(events.filter((e) => e.type.startsWith('elevate.request.')).map((e) => [e.type, e.actor.id])).toEqual([
      ['elevate.request.created', env.users.alice],
      ['elevate.request.approved', env.users.bob],
    ]);
    await Promise.all([alice.context.close(), bob.context.close()]);
  }, 60_000);
});
