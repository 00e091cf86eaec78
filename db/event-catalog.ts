// Every event type the service emits, with a description and the shape of its `data`, assembled from the
// `events.ts` of each family under db/. The catalog is a literal-typed constant: `recordChange` takes an event
// typed by its type, so an uncatalogued type or a wrong data shape fails `tsc`, and at run time it refuses
// data that does not match the schema. GET /v1/event-types publishes it with the JSON Schema of each `data`.
import { z } from 'zod';
import type { EventTypeEntry } from './shared/event-type-entry.ts';
import { API_SECRET_EVENTS } from './access/api-secrets/events.ts';
import { DIRECTORY_EVENTS } from './directory/events.ts';
import { PASSWORD_EVENTS } from './directory/passwords/events.ts';
import { PASSKEY_EVENTS } from './passkeys/events.ts';
import { SIGN_IN_EVENTS } from './oidc/sign-in/events.ts';
import { DIRECTORY_SYNC_EVENTS } from './directory/sync/events.ts';
import { HRIS_EVENTS } from './provisioning/hris/events.ts';
import { ELEVATE_EVENTS } from './access/elevate/events.ts';
import { NOTIFICATION_CHANNEL_EVENTS } from './events/notification-channels/events.ts';
import { WEBHOOK_EVENTS } from './events/webhooks/events.ts';
import { IDENTITY_EVENTS } from './identity/events.ts';
import { ACCESS_EVENTS } from './organizations/organization-keys/events.ts';
import { ORGANIZATION_EVENTS } from './organizations/organizations/events.ts';
import { PROCESS_EVENTS } from './processes/events.ts';
import { RBAC_EVENTS } from './access/rbac/events.ts';
import { FGA_EVENTS } from './access/fga/events.ts';
import { IMPERSONATION_EVENTS } from './access/impersonation/events.ts';
import { PROJECT_EVENTS } from './projects/projects/events.ts';
import { ENVIRONMENT_SETTINGS_EVENTS } from './projects/environment-settings/events.ts';
import { DOMAIN_EVENTS } from './tenants/domains/events.ts';
import { TENANT_EVENTS } from './tenants/tenants/events.ts';
import { THREAT_EVENTS } from './threats/threats/events.ts';
import { MCP_EVENTS } from './threats/mcp-events/events.ts';
import { TRUST_STORE_EVENTS } from './mcp/trust-store/events.ts';
import { PROVISIONING_TOKEN_EVENTS } from './provisioning/provisioning-tokens/events.ts';
import { OIDC_SIGNING_KEY_EVENTS } from './oidc/keys/events.ts';
import { OIDC_PROVIDER_EVENTS } from './oidc/provider/events.ts';
import { OIDC_CLIENT_EVENTS } from './oidc/clients/events.ts';
import { OIDC_CLIENT_ALLOWLIST_EVENTS } from './oidc/client-allowlist/events.ts';
import { CLAIM_MAPPING_EVENTS } from './oidc/claim-mappings/events.ts';
import { OIDC_SETTINGS_EVENTS } from './oidc/settings/events.ts';
import { CONNECTED_APP_EVENTS } from './oidc/connected-apps/events.ts';
import { DIRECTORY_SESSION_EVENTS } from './directory/sessions/events.ts';
import { OIDC_REGISTRATION_EVENTS } from './oidc/registration/events.ts';
import { OIDC_CLEANUP_EVENTS } from './oidc/cleanup/events.ts';
import { MFA_EVENTS } from './mfa/events.ts';
import { PASSWORD_POLICY_EVENTS } from './password-policy/events.ts';
import { PROTECTION_POLICY_EVENTS } from './protections/events.ts';
import { BRUTE_FORCE_EVENTS } from './protections/events.ts';
import { SSO_EVENTS } from './sso/events.ts';
import { EMAIL_CODE_EVENTS } from './email-codes/events.ts';
import { SMS_PROVIDER_EVENTS } from './sms-providers/events.ts';
import { SMS_CODE_EVENTS } from './sms-codes/events.ts';
import { EMAIL_PROVIDER_EVENTS } from './email-providers/events.ts';
import { FORM_EVENTS } from './forms/events.ts';
import { MESSAGE_EVENTS } from './messages/events.ts';
import { ADD_ON_EVENTS } from './add-ons/events.ts';
import { WIDGET_EVENTS } from './widgets/tokens/events.ts';
import { VANITY_DOMAIN_EVENTS } from './vanity-domains/events.ts';
import { BILLING_EVENTS } from './billing/events.ts';
import { ADMIN_PORTAL_EVENTS } from './organizations/admin-portal/events.ts';

export type { EventTypeEntry };

export const EVENT_CATALOG = {
  ...TENANT_EVENTS,
  ...IDENTITY_EVENTS,
  ...WEBHOOK_EVENTS,
  ...NOTIFICATION_CHANNEL_EVENTS,
  ...ACCESS_EVENTS,
  ...DOMAIN_EVENTS,
  ...ORGANIZATION_EVENTS,
  ...PROJECT_EVENTS,
  ...ENVIRONMENT_SETTINGS_EVENTS,
  ...PROCESS_EVENTS,
  ...API_SECRET_EVENTS,
  ...RBAC_EVENTS,
  ...FGA_EVENTS,
  ...DIRECTORY_EVENTS,
  ...IMPERSONATION_EVENTS,
  ...THREAT_EVENTS,
  ...MCP_EVENTS,
  ...DIRECTORY_SYNC_EVENTS,
  ...HRIS_EVENTS,
  ...TRUST_STORE_EVENTS,
  ...ELEVATE_EVENTS,
  ...PROVISIONING_TOKEN_EVENTS,
  ...OIDC_SIGNING_KEY_EVENTS,
  ...OIDC_PROVIDER_EVENTS,
  ...OIDC_CLIENT_EVENTS,
  ...OIDC_CLIENT_ALLOWLIST_EVENTS,
  ...CLAIM_MAPPING_EVENTS,
  ...OIDC_SETTINGS_EVENTS,
  ...CONNECTED_APP_EVENTS,
  ...DIRECTORY_SESSION_EVENTS,
  ...PASSWORD_EVENTS,
  ...PASSKEY_EVENTS,
  ...SIGN_IN_EVENTS,
  ...OIDC_REGISTRATION_EVENTS,
  ...OIDC_CLEANUP_EVENTS,
  ...MFA_EVENTS,
  ...PASSWORD_POLICY_EVENTS,
  ...PROTECTION_POLICY_EVENTS,
  ...BRUTE_FORCE_EVENTS,
  ...SSO_EVENTS,
  ...EMAIL_CODE_EVENTS,
  ...SMS_PROVIDER_EVENTS,
  ...SMS_CODE_EVENTS,
  ...EMAIL_PROVIDER_EVENTS,
  ...FORM_EVENTS,
  ...MESSAGE_EVENTS,
  ...ADD_ON_EVENTS,
  ...WIDGET_EVENTS,
  ...VANITY_DOMAIN_EVENTS,
  ...BILLING_EVENTS,
  ...ADMIN_PORTAL_EVENTS,
} as const satisfies Record<string, EventTypeEntry>;

/** Every event type the service emits. */
export type EventType = keyof typeof EVENT_CATALOG;

/** The `data` of an event of type `T`. */
export type EventData<T extends EventType> = z.infer<(typeof EVENT_CATALOG)[T]['data']>;

/** An event of type `T` with its data; over a union of types, the union of their events (`type` discriminates). */
export type EventOf<T extends EventType = EventType> = T extends EventType ? { type: T; data: EventData<T> } : never;

export const isKnownEventType = (type: string): type is EventType => Object.hasOwn(EVENT_CATALOG, type);

/** The schema of `data` for an event type, or undefined when the type is not in the catalog. */
export const eventTypeSchema = (type: string): z.ZodType | undefined => (isKnownEventType(type) ? EVENT_CATALOG[type].data : undefined);

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
