import { z } from 'zod';
import { nameProblem } from '../text.ts';

export const CHANNEL_KINDS = ['webhook', 'slack', 'teams', 'pagerduty', 'datadog'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

// Event-type patterns: an exact type, `prefix.*`, `*.suffix` or `*` (everything).
const SEGMENTS = '[a-z0-9_]+(?:\\.[a-z0-9_]+)*';
export const EVENT_TYPE_PATTERN = new RegExp(`^(?:\\*|${SEGMENTS}|${SEGMENTS}\\.\\*|\\*\\.${SEGMENTS})$`);

// http is accepted so local receivers work; egress policy is enforced where requests are sent.
const webUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
const secret = z.string().trim().min(1, 'is required').max(1024);
const label = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .superRefine((value, ctx) => {
    const problem = nameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
const hostname = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
// Datadog tags start with a letter; only alphanumerics, `_ - : . /` are kept by Datadog.
const ddTag = z
  .string()
  .max(200)
  .regex(/^[A-Za-z][\w\-:./]*$/, 'must be a Datadog tag like `team:iam`');

export const channelConfigSchemas = {
  webhook: z.strictObject({ url: webUrl }),
  slack: z.strictObject({
    channelLabel: label.optional(),
    // The directory user attribute holding a user's Slack member id (default `slackUserId`): who clicked an approval button.
    approverAttribute: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be an attribute name (a letter, then letters, digits or `_`)')
      .optional(),
  }),
  teams: z.strictObject({ channelLabel: label.optional() }),
  pagerduty: z.strictObject({
    severityMap: z.record(z.string().regex(EVENT_TYPE_PATTERN, 'must be an event type, `prefix.*`, `*.suffix` or `*`'), z.enum(SEVERITIES)).optional(),
    source: label.optional(),
  }),
  datadog: z.strictObject({
    site: z.string().toLowerCase().regex(hostname, 'must be a Datadog site such as `datadoghq.eu`').default('datadoghq.com'),
    tags: z.array(ddTag).max(20).optional(),
  }),
} satisfies Record<ChannelKind, z.ZodType>;

export const channelSecretSchemas = {
  // Omitted on create: the service generates one.
  webhook: z.strictObject({ signingSecret: z.string().min(16, 'must be at least 16 characters').max(1024).optional() }),
  // Incoming-webhook URLs embed their token, so the whole URL is a secret.
  // signingSecret: the Slack app's signing secret, which verifies its interactivity requests (approval buttons).
  slack: z.strictObject({ webhookUrl: webUrl, signingSecret: secret.optional() }),
  teams: z.strictObject({ webhookUrl: webUrl }),
  pagerduty: z.strictObject({ routingKey: secret }),
  datadog: z.strictObject({ apiKey: secret }),
} satisfies Record<ChannelKind, z.ZodType>;

export type ChannelConfig<K extends ChannelKind> = z.output<(typeof channelConfigSchemas)[K]>;
export type ChannelConfigInput<K extends ChannelKind> = z.input<(typeof channelConfigSchemas)[K]>;
export type ChannelSecrets<K extends ChannelKind> = z.output<(typeof channelSecretSchemas)[K]>;
export type ChannelSecretsInput<K extends ChannelKind> = z.input<(typeof channelSecretSchemas)[K]>;

const MIN_HINTABLE = 12;

function tail(value: string): string {
  return value.length >= MIN_HINTABLE ? `…${value.slice(-4)}` : '…';
}

/** `https://hooks.slack.com/services/T0/B0/XXXXabcd` → `https://hooks.slack.com/services/…abcd`. */
function urlHint(value: string): string | null {
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) return null;
  const url = new URL(value);
  const segments = url.pathname.split('/').filter(Boolean);
  // The first segment is a route (`services`, `workflows`) unless it is long enough to be a token.
  const first = segments.length > 1 && segments[0]!.length <= 16 ? `${segments[0]}/` : '';
  return `${url.protocol}//${url.host}/${first}${tail(value)}`;
}

/** A masked hint per secret field, safe to return from the API. */
export function secretHints<K extends ChannelKind>(kind: K, secrets: Partial<ChannelSecrets<K>>): Record<string, string> {
  const hints: Record<string, string> = {};
  for (const field of Object.keys(channelSecretSchemas[kind].shape)) {
    const value: unknown = (secrets as Record<string, unknown>)[field];
    if (typeof value === 'string' && value !== '') hints[field] = urlHint(value) ?? tail(value);
  }
  return hints;
}
