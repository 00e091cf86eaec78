// The bot-challenge add-on kinds: each vendor's config and secrets (zod, so a 400 names the field), its siteverify
// endpoint, the field its widget adds to a form, and the widget's script and the origins the page's CSP must allow.
import { z } from 'zod';

export const BOT_CHALLENGE_KINDS = ['turnstile', 'hcaptcha', 'recaptcha'] as const;
export type BotChallengeKind = (typeof BOT_CHALLENGE_KINDS)[number];

export interface BotChallengeVendor {
  /** The siteverify origin used when a config names no `baseUrl`. */
  baseUrl: string;
  verifyPath: string;
  /** The hidden field the widget adds to its form with the token. */
  responseField: string;
  /** The widget's element class (it renders into `<div class="…" data-sitekey="…">`). */
  widgetClass: string;
  script: string;
  /** What the page's CSP must allow for the widget: its script, its frames, its calls and styles. */
  sources: string[];
}

export const BOT_CHALLENGE_VENDORS: Record<BotChallengeKind, BotChallengeVendor> = {
  turnstile: {
    baseUrl: 'https://challenges.cloudflare.com',
    verifyPath: '/turnstile/v0/siteverify',
    responseField: 'cf-turnstile-response',
    widgetClass: 'cf-turnstile',
    script: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
    sources: ['https://challenges.cloudflare.com'],
  },
  hcaptcha: {
    baseUrl: 'https://api.hcaptcha.com',
    verifyPath: '/siteverify',
    responseField: 'h-captcha-response',
    widgetClass: 'h-captcha',
    script: 'https://js.hcaptcha.com/1/api.js',
    sources: ['https://hcaptcha.com', 'https://*.hcaptcha.com'],
  },
  recaptcha: {
    baseUrl: 'https://www.google.com',
    verifyPath: '/recaptcha/api/siteverify',
    responseField: 'g-recaptcha-response',
    widgetClass: 'g-recaptcha',
    script: 'https://www.google.com/recaptcha/api.js',
    sources: ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/', 'https://recaptcha.google.com/recaptcha/'],
  },
};

const baseUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .transform((u) => u.replace(/\/+$/, ''));

export const BotChallengeConfig = z.strictObject({
  siteKey: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be the site key the vendor gave (letters, digits, `-` and `_`)'),
  baseUrl: baseUrl.optional().describe('The siteverify origin (default the vendor’s): a local verifier in tests'),
});
export const BotChallengeSecrets = z.strictObject({ secretKey: z.string().trim().min(1, 'is required').max(1024) });
export type BotChallengeConfig = z.output<typeof BotChallengeConfig>;
export type BotChallengeSecrets = z.output<typeof BotChallengeSecrets>;

/** The widget a page shows for the environment's active bot-challenge add-on (from the Provider snapshot). */
export interface BotChallengeWidget {
  kind: BotChallengeKind;
  siteKey: string;
}
