// Email provider kinds: each kind's config and secrets (zod, so a 400 names the field) and masked hints of the secrets.
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';

export const EMAIL_PROVIDER_KINDS = ['resend', 'sendgrid', 'ses', 'postmark', 'smtp'] as const;
export type EmailProviderKind = (typeof EMAIL_PROVIDER_KINDS)[number];

/** The vendors' own API base URLs, used when a config names no `baseUrl`. */
export const DEFAULT_BASE_URLS = {
  resend: 'https://api.resend.com',
  sendgrid: 'https://api.sendgrid.com',
  postmark: 'https://api.postmarkapp.com',
} as const;
export const sesBaseUrl = (region: string) => `https://email.${region}.amazonaws.com`;

// A bare address; display names are not accepted here (the vendors disagree on their syntax).
const email = z.email({ error: 'must be an email address' }).max(320);
const baseUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .transform((u) => u.replace(/\/+$/, ''));
const secret = z.string().trim().min(1, 'is required').max(4096);
const pemPrivateKey = z.string().refine((pem) => {
  try {
    return pem.includes('-----BEGIN') && createPrivateKey(pem).asymmetricKeyType !== undefined;
  } catch {
    return false;
  }
}, 'must be a PEM private key (RSA or Ed25519)');
const httpConfig = z.strictObject({ from: email, replyTo: email.optional(), baseUrl: baseUrl.optional() });
const hostname = /^(?=.{1,253}$)(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)*[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$|^\d{1,3}(?:\.\d{1,3}){3}$/;

export const emailConfigSchemas = {
  resend: httpConfig,
  sendgrid: httpConfig,
  postmark: httpConfig.extend({ messageStream: z.string().trim().min(1).max(100).optional() }),
  ses: httpConfig.extend({ region: z.string().regex(/^[a-z]{2}(?:-[a-z]+)+-\d$/, 'must be an AWS region such as `eu-west-1`') }),
  smtp: z.strictObject({
    host: z.string().regex(hostname, 'must be a host name or an IPv4 address'),
    port: z.number().int().min(1).max(65535),
    // true: implicit TLS from the first byte (port 465); false: STARTTLS when the server offers it (587, 25).
    secure: z.boolean().default(false),
    requireTls: z.boolean().default(true).describe('With secure=false: refuse to send unless the server upgrades with STARTTLS'),
    from: email,
    replyTo: email.optional(),
    // Signs every message with DKIM (the private key is the secret `dkimPrivateKey`); its DNS record is the sender's to publish.
    dkim: z
      .strictObject({
        domainName: z.string().toLowerCase().regex(hostname, 'must be a domain name'),
        keySelector: z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/, 'must be a DNS label such as `mail`'),
      })
      .optional(),
  }),
} satisfies Record<EmailProviderKind, z.ZodType>;

export const emailSecretSchemas = {
  resend: z.strictObject({ apiKey: secret }),
  sendgrid: z.strictObject({ apiKey: secret }),
  postmark: z.strictObject({ serverToken: secret }),
  ses: z.strictObject({ accessKeyId: secret, secretAccessKey: secret }),
  smtp: z.strictObject({ username: secret, password: secret, dkimPrivateKey: pemPrivateKey.optional() }),
} satisfies Record<EmailProviderKind, z.ZodType>;

export type EmailConfig<K extends EmailProviderKind> = z.output<(typeof emailConfigSchemas)[K]>;
export type EmailSecrets<K extends EmailProviderKind> = z.output<(typeof emailSecretSchemas)[K]>;

/** `…wxyz` for a secret of 12 characters or more, `…` for a shorter one (its tail would give too much away). */
export function emailSecretHints(secrets: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secrets)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .map(([key, value]) => [key, value.includes('-----BEGIN') ? 'PEM private key' : value.length >= 12 ? `…${value.slice(-4)}` : '…']),
  );
}
