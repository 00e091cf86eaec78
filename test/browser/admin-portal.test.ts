// The Admin Portal in Chromium, as an organization's admin uses it from the link they were sent. SSO: paste the local
// SAML IdP's metadata, copy the SP values into the IdP, and "test connection" runs a real sign-in through the hosted
// sign-in and back. Domain verification: add a domain, publish the TXT record on the test DNS server, and the page
// shows the verification process's result by itself. axe on every portal page; UPDATE_SCREENSHOTS=1 writes the
// screenshots of docs/images/.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, heading, launchBrowser } from '../helpers/browser.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startSamlIdpServer } from '../helpers/saml-idp-server.ts';
import { freePort } from '../../db/embedded.ts';

let t: TestAppWithProcesses;
let browser: Browser;
let dns: TestDnsServer;
let baseUrl: string;

beforeAll(async () => {
  [dns, browser] = await Promise.all([startDnsServer(), launchBrowser()]);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestAppWithProcesses({
    env: { PUBLIC_BASE_URL: baseUrl, DNS_SERVERS: dns.address, DOMAIN_VERIFICATION_INTERVALS: '200ms', DOMAIN_VERIFICATION_GIVE_UP: '10m' },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await Promise.all([browser?.close(), dns?.close(), t?.close()]);
});

async function portalLink(intent: string) {
  const { tenantId, environmentIds } = await newEnvironments(t);
  const environmentId = environmentIds[0]!;
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/organizations/${t.credentials.organizationId}/portal-links`,
    headers: bearer(await t.token()),
    payload: { tenantId, environmentId, intent, returnUrl: 'https://app.example.com/settings' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { tenantId, environmentId, url: (res.json() as { url: string }).url };
}

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return { context, page };
}

const screenshot = async (page: Page, name: string) => {
  if (process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: `docs/images/${name}`, fullPage: true });
};

describeBrowser('Admin Portal in Chromium', () => {
  it('sets up a SAML connection from pasted metadata and tests it with a real sign-in through the hosted sign-in', async () => {
    const { url, environmentId } = await portalLink('sso');
    const email = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const idp = await startSamlIdpServer({ nameId: email, attributes: { givenName: 'Grace', sn: 'Hopper' } });
    const { context, page } = await newPage();
    try {
      await page.goto(url);
      expect(await heading(page)).toBe('Set up single sign-on');
      await expectAccessible(page);
      const entityId = await page.locator('[data-copy="entity-id"]').textContent();
      expect(entityId).toBe(`${baseUrl}/v1/sso/${environmentId}/saml/metadata`);
      expect(await page.locator('[data-copy="acs-url"]').textContent()).toBe(`${baseUrl}/v1/sso/${environmentId}/saml/acs`);

      await page.getByLabel('Connection name').first().fill('Test IdP');
      await page.getByLabel('IdP metadata XML').fill(idp.metadataXml);
      await page.getByRole('button', { name: 'Save SAML connection' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Connection added: Test IdP');
      await expectAccessible(page);
      await screenshot(page, 'portal-sso.png');
      // The IdP's administrator loads the SP metadata from the entity id the portal showed.
      idp.trust(await (await fetch(entityId!)).text());

      await page.getByRole('button', { name: 'Test connection: Test IdP' }).click();
      await page.waitForURL((u) => u.href.startsWith(`${baseUrl}/v1/oidc/${environmentId}/interaction/`));
      await page.getByRole('button', { name: 'Continue with Test IdP' }).click();
      await page.waitForURL((u) => u.pathname.startsWith('/v1/oidc/') || u.pathname.startsWith('/portal/'));
      if ((await heading(page)) === 'Allow access') await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.pathname === '/portal/sso/test/callback');
      expect(await page.getByRole('status').first().textContent()).toContain(`The connection works: signed in as ${email}`);
      await expectAccessible(page);
    } finally {
      await context.close();
      await idp.close();
    }
  });

  it('adds a domain and shows it verified once the TXT record is published', async () => {
    const { url } = await portalLink('domain_verification');
    const domain = `acme-${crypto.randomUUID().slice(0, 8)}.com`;
    const { context, page } = await newPage();
    try {
      await page.goto(url);
      expect(await heading(page)).toBe('Verify a domain');
      await expectAccessible(page);
      await page.getByLabel('Domain', { exact: true }).fill(domain);
      await page.getByRole('button', { name: 'Add domain' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain(`${domain} added`);
      // The page polls the domain's status on its own (here every 200 ms).
      await page.goto(`${baseUrl}/portal?pollMs=200`);
      const status = page.locator('[data-status-url]');
      expect(await status.textContent()).toBe('Waiting for the TXT record…');
      const values = page.locator('dd.value');
      expect(await values.nth(0).textContent()).toBe(`_iam-challenge.${domain}`);
      await expectAccessible(page);
      dns.setTxt(`_iam-challenge.${domain}`, (await values.nth(1).textContent())!);
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('Verified');
      await expectAccessible(page);
      await screenshot(page, 'portal-domain.png');
    } finally {
      await context.close();
    }
  });
});
