// Search attributes set on Temporal workflows, so operators find processes in the UI by what they know:
// a tenant or organization (`TenantId = '<uuid>'`), an endpoint, channel, domain or invitation, and for a
// delivery its current attempt and when the next one is due (kept current by the workflow). Every key in
// SEARCH_ATTRIBUTES must be registered in the namespace before a workflow uses it (the compose init job and the
// dev/test server start do it from this list). Values are stored unencrypted: ids only, never PII.
// Postgres visibility allows 10 Keyword, 3 Datetime and 3 Int attributes per namespace: this list uses 6, 1 and 1.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const TenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const OrganizationIdKey = defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD);
export const EndpointIdKey = defineSearchAttributeKey('EndpointId', SearchAttributeType.KEYWORD);
export const ChannelIdKey = defineSearchAttributeKey('ChannelId', SearchAttributeType.KEYWORD);
export const DomainIdKey = defineSearchAttributeKey('DomainId', SearchAttributeType.KEYWORD);
export const InvitationIdKey = defineSearchAttributeKey('InvitationId', SearchAttributeType.KEYWORD);
/** When a retrying delivery makes its next attempt (removed once it is settled). */
export const NextAttemptAtKey = defineSearchAttributeKey('NextAttemptAt', SearchAttributeType.DATETIME);
/** The attempt a delivery is at (1 for the first). */
export const DeliveryAttemptKey = defineSearchAttributeKey('DeliveryAttempt', SearchAttributeType.INT);

/** Every search attribute the workflows use: what a namespace must have registered. */
export const SEARCH_ATTRIBUTES = [
  TenantIdKey,
  OrganizationIdKey,
  EndpointIdKey,
  ChannelIdKey,
  DomainIdKey,
  InvitationIdKey,
  NextAttemptAtKey,
  DeliveryAttemptKey,
];

/** The type of each attribute as the Temporal CLI spells it (`--search-attribute TenantId=Keyword`, `--type Keyword`). */
export const cliTypeOf = (key: (typeof SEARCH_ATTRIBUTES)[number]) =>
  ({ KEYWORD: 'Keyword', DATETIME: 'Datetime', INT: 'Int' })[key.type as 'KEYWORD' | 'DATETIME' | 'INT'];
