// Screenshots of the hosted sign-in pages for the docs (light theme, en): the identifier page, the password page
// (with its passkey offer), the TOTP enrolment a required MFA policy asks for, the "create a passkey" step and the
// consent page, and the identifier page in German, into docs/images/sign-in-*.png.
// `node scripts/screenshot-sign-in.ts [dir]` starts its own embedded Postgres and the service on `localhost` (passkeys
// need a domain name), signs a user in with headless Chromium and stops everything. CHROMIUM sets the browser
// (default /usr/bin/chromium).
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { chromium } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { hashPassword } from '../lib/passwords.ts';
import { createUserQueries } from '../db/identity/users/queries.ts';
import { createPasswordQueries } from '../db/directory/passwords/queries.ts';
import { startBenchDatabase } from '../bench/database.ts';
import { PASSWORD, REDIRECT_URI, startOidcBenchService } from '../bench/oidc/setup.ts';

const dir = path.resolve(process.argv[2] ?? 'docs/images');
const cleanups: (() => Promise<unknown>)[] = [];
try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const { service, environmentId, issuer, client } = await startOidcBenchService(databaseUrl, undefined, 'localhost');
  cleanups.push(() => service.close());
  await service.pool.query(sql.unsafe`UPDATE oidc_clients SET name = 'Example App' WHERE client_id = ${client.id}`);
  await service.pool.query(sql.unsafe`INSERT INTO sign_in_settings (environment_id, display_name, sign_up_enabled) VALUES (${environmentId}, 'Acme', true)`);
  const user = await createUserQueries(service.pool).insertVerifiedUser({
    environmentId,
    userName: 'ada@example.com',
    displayName: 'Ada Lovelace',
    email: 'ada@example.com',
    managementScopes: [],
  });
  await createPasswordQueries(service.pool, environmentId).setPassword(user.id, await hashPassword(PASSWORD));
  await service.pool.query(sql.unsafe`INSERT INTO mfa_settings (environment_id, mode) VALUES (${environmentId}, 'required')`);

  const authorize = (locale?: string) => {
    const url = new URL(`${issuer}/auth`);
    const verifier = randomBytes(32).toString('base64url');
    url.search = new URLSearchParams({
      client_id: client.id,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...(locale ? { ui_locales: locale } : {}),
    }).toString();
    return url.href;
  };

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
  cleanups.push(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 720, height: 640 }, locale: 'en-US' });
  const shot = async (name: string) => {
    const file = path.join(dir, `sign-in-${name}.png`);
    await page.screenshot({ path: file });
    console.log(`wrote ${file}`);
  };
  await page.goto(authorize());
  await shot('identifier');
  await page.getByLabel('User name or email').fill('ada@example.com');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  await shot('password');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByLabel('6-digit code').waitFor();
  await shot('totp');
  const secret = (await page.locator('#secret').textContent())!.replace(/\s/g, '');
  const code = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
  await page.getByLabel('6-digit code').fill(code);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('button', { name: 'I saved them, continue' }).click();
  await page.getByRole('button', { name: 'Create a passkey' }).waitFor();
  await shot('passkey');
  await page.getByRole('button', { name: 'Not now' }).click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  await shot('consent');
  await page.context().clearCookies();
  await page.goto(authorize('de'));
  await shot('identifier-de');
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error(error));
}
