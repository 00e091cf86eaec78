// The add-on kinds that forward an environment's events to a vendor: `segment` (Segment's HTTP Tracking API, batch
// endpoint, write key as HTTP basic auth) and `analytics` (PostHog's batch API). Config and secrets as zod schemas so a
// 400 names the field; the event types forwarded are a configurable subset, defaulting to the identity events.
import { z } from 'zod';

export const FORWARDING_KINDS = ['segment', 'analytics'] as const;
export type ForwardingKind = (typeof FORWARDING_KINDS)[number];
export const isForwardingKind = (kind: string): kind is ForwardingKind => (FORWARDING_KINDS as readonly string[]).includes(kind);

export const FORWARDING_VENDORS: Record<ForwardingKind, { baseUrl: string; path: string }> = {
  segment: { baseUrl: 'https://api.segment.io', path: '/v1/batch' },
  analytics: { baseUrl: 'https://us.i.posthog.com', path: '/batch/' },
};

/**
 * The identity events forwarded when a config names none: the directory user's life, sign-ups and sign-ins, sessions
 * ended, group memberships. Types of the event catalog (a test checks each exists).
 */
export const DEFAULT_FORWARDED_EVENTS = [
  'directory.user.created',
  'directory.user.updated',
  'directory.user.deactivated',
  'directory.user.activated',
  'directory.user.deleted',
  'user.signed_up',
  'user.signed_in',
  'session.revoked',
  'directory.group.member_added',
  'directory.group.member_removed',
] as const;

const baseUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .transform((u) => u.replace(/\/+$/, ''));

// An exact type, `*`, or a prefix wildcard (`directory.user.*`), as webhook subscriptions match.
const eventType = z.string().regex(/^(\*|[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?)$/, 'must be an event type, `*` or a prefix wildcard like `directory.user.*`');

const ForwardingConfig = z.strictObject({
  baseUrl: baseUrl.optional().describe('The vendor’s API origin (default the vendor’s); a local fake in tests'),
  eventTypes: z
    .array(eventType)
    .min(1)
    .max(100)
    .default([...DEFAULT_FORWARDED_EVENTS]),
});
export const SegmentConfig = ForwardingConfig;
export const AnalyticsConfig = ForwardingConfig;
export const SegmentSecrets = z.strictObject({ writeKey: z.string().trim().min(1, 'is required').max(1024) });
export const AnalyticsSecrets = z.strictObject({ apiKey: z.string().trim().min(1, 'is required').max(1024) });

export type ForwardingConfig = z.output<typeof ForwardingConfig>;
export interface ForwardingSecrets {
  writeKey?: string;
  apiKey?: string;
}
