// Texted codes in tests (with ./sending-app.ts, whose processes send them through the environment's active SMS
// provider): an environment with an active Twilio provider (pointed at a local fake) and
// texting on in its MFA settings, and the texts a number received, read from the fake (or the default sender's inbox,
// where a test's sender keeps them).
import { expect } from 'vitest';
import type { App } from '../../api/types.ts';
import { bearer } from './app.ts';
import { form, type VendorFake } from './vendor-fakes/sms-server.ts';
import { startTwilioFake } from './vendor-fakes/sms-twilio.ts';

export const TWILIO = { accountSid: `AC${'5e'.repeat(16)}`, authToken: 'sms-factor-token-4242' };
export const startSmsFake = () => startTwilioFake(TWILIO);

/** Saves an active Twilio provider (at `fake`) for the environment, with `allowedCountries` if given. */
export async function activeSmsProvider(app: App, token: string, path: string, fake: VendorFake, allowedCountries?: string[]) {
  const config = { accountSid: TWILIO.accountSid, from: '+14155552671', baseUrl: fake.url, ...(allowedCountries ? { allowedCountries } : {}) };
  const res = await app.inject({
    method: 'PUT',
    url: `${path}/sms-providers/twilio`,
    headers: bearer(token),
    payload: { config, secrets: { authToken: TWILIO.authToken } },
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
}

/** Every text sent to `to`, oldest first. */
export const textsTo = (app: App, fake: VendorFake, to: string) => [
  ...app.messages.inbox.messages.filter((m) => m.channel === 'sms' && m.to === to).map((m) => ({ text: m.text, kind: m.kind })),
  ...fake.received
    .map(form)
    .filter((f) => f.To === to)
    .map((f) => ({ text: f.Body ?? '', kind: 'sms_code' })),
];

/** The code of the `n`th text (1-based) to `to`, once it arrived. */
export async function nthCode(app: App, fake: VendorFake, to: string, n: number) {
  await expect.poll(() => textsTo(app, fake, to).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(n);
  return /\b(\d{6})\b/.exec(textsTo(app, fake, to)[n - 1]!.text)![1]!;
}
