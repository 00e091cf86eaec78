// Every event type the service emits, with a description and the shape of its `data`. recordChange refuses
// a type missing here or data that does not match, so the catalog cannot drift from the code; GET
// /v1/event-types publishes it with the JSON Schema of each `data`.
import { z } from 'zod';
import { ACCESS_EVENTS } from './organizations/organization-keys/events.ts';
import { DOMAIN_EVENTS } from './tenants/domains/events.ts';
import { ORGANIZATION_EVENTS } from './organizations/organizations/events.ts';
import { PROJECT_EVENTS } from './projects/projects/events.ts';
import { uuid } from './shared/rows.ts';
import { PersonalAccessToken, ServiceAccount } from './identity/credentials-rows.ts';
import { Tenant } from './tenants/tenants/rows.ts';
import { NotificationChannel, WebhookEndpoint } from './events/webhooks/rows.ts';

export interface EventTypeEntry {
  description: string;
  data: z.ZodType;
}

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const tenant = z.looseObject({ tenant: Tenant });
const serviceAccount = z.looseObject({ serviceAccount: ServiceAccount });
const token = z.looseObject({ token: PersonalAccessToken });
const endpoint = z.looseObject({ endpoint: WebhookEndpoint });
const channel = z.looseObject({ channel: NotificationChannel });

export const EVENT_CATALOG: Readonly<Record<string, EventTypeEntry>> = {
  'tenant.created': { description: 'A tenant was created.', data: tenant },
  'tenant.updated': {
    description: 'A tenant was changed; `previous` holds the former values of the changed fields.',
    data: tenant.extend({ previous: z.record(z.string(), z.unknown()) }),
  },
  'tenant.deleted': { description: 'A tenant and everything in it was deleted; `tenant` is its last state.', data: tenant },
  'user.created': {
    description: 'A directory user was created in an environment.',
    data: z.looseObject({ user: z.looseObject({ id: uuid, userName: z.string() }) }),
  },
  'service_account.created': { description: 'A service account was created.', data: serviceAccount },
  'service_account.updated': { description: 'A service account was changed (name, description, scopes or active).', data: serviceAccount },
  'service_account.deleted': { description: 'A service account was deleted; `serviceAccount` is its last state.', data: serviceAccount },
  'service_account.secret_rotated': { description: 'The client secret of a service account was replaced.', data: serviceAccount },
  'personal_access_token.created': { description: 'A personal access token was created.', data: token },
  'personal_access_token.revoked': { description: 'A personal access token was revoked.', data: token },
  'signing_key.rotated': {
    description: 'A new key now signs access tokens; the previous one is retired.',
    data: z.looseObject({ kid: z.string().describe('Key id of the new signing key') }),
  },
  'webhook.endpoint.created': { description: 'A webhook endpoint was created.', data: endpoint },
  'webhook.endpoint.updated': { description: 'A webhook endpoint was changed.', data: endpoint },
  'webhook.endpoint.deleted': { description: 'A webhook endpoint was deleted; `endpoint` is its last state.', data: endpoint },
  'webhook.endpoint.secret_rotated': {
    description: 'The signing secret of a webhook endpoint was replaced (the old one overlaps for a while).',
    data: endpoint,
  },
  'webhook.endpoint.disabled': {
    description: 'The service disabled a webhook endpoint: it answered 410 Gone, or every delivery failed for too long.',
    data: endpoint.extend({ reason: z.string().describe('Why the endpoint was disabled, in a sentence') }),
  },
  'webhook.endpoint.enabled': { description: 'A disabled webhook endpoint was enabled again.', data: endpoint },
  'webhook.endpoint.recovered': {
    description: 'The failed deliveries of an endpoint since a point in time were redelivered.',
    data: z.looseObject({
      endpointId: uuid,
      since: z.string().describe('ISO 8601 time from which failed deliveries were redelivered'),
      deliveryIds: z.array(z.string()).describe('The new deliveries'),
    }),
  },
  'webhook.delivery.redelivered': {
    description: 'A delivery was sent again as a new, freshly signed delivery.',
    data: z.looseObject({ deliveryId: uuid.describe('The new delivery'), redeliveryOf: uuid.describe('The delivery it repeats') }),
  },
  'webhook.test': {
    description: 'A test event sent to one endpoint on request (never fanned out to subscriptions).',
    data: z.looseObject({ message: z.string() }),
  },
  'notification_channel.created': { description: 'A notification channel was created.', data: channel },
  'notification_channel.updated': { description: 'A notification channel was changed.', data: channel },
  'notification_channel.deleted': { description: 'A notification channel was deleted; `channel` is its last state.', data: channel },
  'notification_channel.tested': { description: 'A test notification was sent through a channel.', data: channel },
  ...ACCESS_EVENTS,
  ...DOMAIN_EVENTS,
  ...ORGANIZATION_EVENTS,
  ...PROJECT_EVENTS,
};

export const isKnownEventType = (type: string): boolean => Object.hasOwn(EVENT_CATALOG, type);

/** The schema of `data` for an event type, or undefined when the type is not in the catalog. */
export const eventTypeSchema = (type: string): z.ZodType | undefined => (isKnownEventType(type) ? EVENT_CATALOG[type]?.data : undefined);

export interface EventTypeDescription {
  type: string;
  description: string;
  schema: Record<string, unknown>;
}

let described: EventTypeDescription[] | undefined;

/** The catalog with the JSON Schema (draft 2020-12) of each type's data, sorted by type. */
export function describeCatalog(): EventTypeDescription[] {
  described ??= Object.entries(EVENT_CATALOG)
    // Code-point order (as Array#sort), not locale order, which puts `organization_key.*` among `organization.*`.
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([type, entry]) => ({
      type,
      description: entry.description,
      schema: z.toJSONSchema(entry.data, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>,
    }));
  return described;
}
