// The HTTP request forwarding one event to a vendor, in the vendor's own shape:
// - segment: POST <baseUrl>/v1/batch (Segment's HTTP Tracking API), `Authorization: Basic base64(<writeKey>:)`, body
//   `{ batch, sentAt }`. A user's profile events (a directory user created, changed, activated, deactivated; a
//   sign-up) add an `identify` with the user's traits before the `track` every event is; `messageId` is the event id
//   (the identify's `<event id>-identify`), on which Segment dedupes a delivery sent twice.
// - analytics: POST <baseUrl>/batch/ (PostHog's batch API), body `{ api_key, historical_migration: false, batch }`
//   and `Authorization: Bearer <apiKey>` for other sinks; `uuid` is the event id, a profile event carries the traits
//   in `properties.$set`.
import { randomUUID } from 'node:crypto';
import { FORWARDING_VENDORS, type ForwardingConfig, type ForwardingKind, type ForwardingSecrets } from './kinds.ts';

export interface ForwardedEvent {
  id: string;
  type: string;
  occurredAt: string;
  tenantId: string | null;
  environmentId: string | null;
  data: Record<string, unknown>;
}

export interface ForwardRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

type Fields = Record<string, unknown>;
const LIBRARY = { name: 'iam-service', version: '1' };
/** The id the test call reports as, never a real user's. */
export const TEST_USER_ID = 'iam-add-on-test';

const obj = (v: unknown): Fields | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : undefined);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The user an event is about, when it names one. */
export function userIdOf(data: Fields): string | undefined {
  return str(data.userId) ?? str(obj(data.user)?.id) ?? str(obj(data.session)?.userId) ?? str(obj(data.member)?.userId);
}

/** A user's traits from a profile event (a directory user, or a sign-up's email); undefined for other events. */
export function traitsOf(event: ForwardedEvent): Fields | undefined {
  if (event.type === 'user.signed_up') return { email: str(event.data.email) };
  const user = obj(event.data.user);
  if (!user || event.type === 'directory.user.deleted') return undefined;
  const names = obj(user.names);
  const emails = Array.isArray(user.emails) ? (user.emails as Fields[]) : [];
  const traits: Fields = {
    email: str(emails[0]?.value),
    username: str(user.userName),
    name: str(user.displayName) ?? str(names?.formatted),
    firstName: str(names?.givenName),
    lastName: str(names?.familyName),
    active: typeof user.active === 'boolean' ? user.active : undefined,
    createdAt: str(user.createdAt),
  };
  return Object.fromEntries(Object.entries(traits).filter(([, v]) => v !== undefined));
}

const request = (kind: ForwardingKind, config: ForwardingConfig, secrets: ForwardingSecrets, batch: Fields[]): ForwardRequest => {
  const url = `${config.baseUrl ?? FORWARDING_VENDORS[kind].baseUrl}${FORWARDING_VENDORS[kind].path}`;
  const headers = { 'content-type': 'application/json', 'user-agent': 'iam-service-add-ons/1' };
  if (kind === 'segment') {
    const basic = Buffer.from(`${secrets.writeKey ?? ''}:`).toString('base64');
    return { url, body: JSON.stringify({ batch, sentAt: new Date().toISOString() }), headers: { ...headers, authorization: `Basic ${basic}` } };
  }
  const body = JSON.stringify({ api_key: secrets.apiKey ?? '', historical_migration: false, batch });
  return { url, body, headers: { ...headers, authorization: `Bearer ${secrets.apiKey ?? ''}` } };
};

export function buildForwardRequest(kind: ForwardingKind, config: ForwardingConfig, secrets: ForwardingSecrets, event: ForwardedEvent): ForwardRequest {
  const userId = userIdOf(event.data);
  const traits = traitsOf(event);
  const properties = { ...event.data, eventId: event.id, environmentId: event.environmentId, tenantId: event.tenantId };
  if (kind === 'segment') {
    const who = userId ? { userId } : { anonymousId: `environment:${event.environmentId ?? event.tenantId}` };
    const common = { timestamp: event.occurredAt, context: { library: LIBRARY }, ...who };
    const track = { ...common, type: 'track', messageId: event.id, event: event.type, properties };
    const identify = traits && { ...common, type: 'identify', messageId: `${event.id}-identify`, traits };
    return request(kind, config, secrets, identify ? [identify, track] : [track]);
  }
  const distinctId = userId ?? `environment:${event.environmentId ?? event.tenantId}`;
  const props = { ...properties, $lib: LIBRARY.name, ...(traits ? { $set: traits } : {}) };
  return request(kind, config, secrets, [{ event: event.type, distinct_id: distinctId, timestamp: event.occurredAt, uuid: event.id, properties: props }]);
}

/** The test call: one event `iam add-on tested` for the test user, in the same shape and with the same credentials. */
export function buildTestRequest(kind: ForwardingKind, config: ForwardingConfig, secrets: ForwardingSecrets): ForwardRequest {
  const timestamp = new Date().toISOString();
  const properties = { test: true };
  if (kind === 'segment')
    return request(kind, config, secrets, [
      { type: 'track', messageId: randomUUID(), timestamp, anonymousId: TEST_USER_ID, event: 'iam add-on tested', properties, context: { library: LIBRARY } },
    ]);
  return request(kind, config, secrets, [{ event: 'iam add-on tested', distinct_id: TEST_USER_ID, timestamp, uuid: randomUUID(), properties }]);
}
