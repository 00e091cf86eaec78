// The `stripe` payments add-on: its config and secrets (zod, so a 400 names the field).
import { z } from 'zod';

const baseUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .transform((u) => u.replace(/\/+$/, ''));

export const StripeConfig = z.strictObject({
  baseUrl: baseUrl.optional().describe('The Stripe API origin (default https://api.stripe.com): a local fake in tests'),
  publishableKey: z
    .string()
    .regex(/^pk_(test|live)_[A-Za-z0-9]{1,250}$/, 'must be a Stripe publishable key (`pk_test_…` or `pk_live_…`)')
    .optional(),
});
export const StripeSecrets = z.strictObject({
  secretKey: z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]{1,250}$/, 'must be a Stripe secret or restricted key (`sk_test_…`, `rk_live_…`)'),
  webhookSecret: z.string().regex(/^whsec_[A-Za-z0-9+/=]{1,250}$/, 'must be the webhook endpoint’s signing secret (`whsec_…`)'),
});
export type StripeSecrets = z.output<typeof StripeSecrets>;
