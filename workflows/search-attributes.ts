// Search attributes set on Temporal workflows, so operators find processes in the UI by what they know:
// a tenant or organization (`TenantId = '<uuid>'`), an endpoint, channel, domain or invitation, and for a
// delivery its current attempt and when the next one is due (kept current by the workflow). Every key in
// SEARCH_ATTRIBUTES must be registered in the namespace before a workflow uses it (the compose init job, the
// dev server start and the test server do it from this list). Values are stored unencrypted: ids only, never PII.
// Postgres visibility allows 10 Keyword, 3 Datetime and 3 Int attributes per namespace: this list uses 7, 1 and 1.
// A key is a plain `{ name, type }` (what `defineSearchAttributeKey` returns): the type-only import keeps this
// folder free of runtime imports other than @temporalio/workflow.
import type { defineSearchAttributeKey } from '@temporalio/common';

type Key<T extends 'KEYWORD' | 'DATETIME' | 'INT'> = ReturnType<typeof defineSearchAttributeKey<T>>;
const keyword = (name: string): Key<'KEYWORD'> => ({ name, type: 'KEYWORD' });

export const TenantIdKey = keyword('TenantId');
export const OrganizationIdKey = keyword('OrganizationId');
/** The environment a process works in (directory sync, elevate and impersonation grants, trust-store keys). */
export const EnvironmentIdKey = keyword('EnvironmentId');
export const EndpointIdKey = keyword('EndpointId');
export const ChannelIdKey = keyword('ChannelId');
export const DomainIdKey = keyword('DomainId');
export const InvitationIdKey = keyword('InvitationId');
/** When a retrying delivery makes its next attempt (removed once it is settled). */
export const NextAttemptAtKey: Key<'DATETIME'> = { name: 'NextAttemptAt', type: 'DATETIME' };
/** The attempt a delivery is at (1 for the first). */
export const DeliveryAttemptKey: Key<'INT'> = { name: 'DeliveryAttempt', type: 'INT' };

/** Every search attribute the workflows use: what a namespace must have registered. */
export const SEARCH_ATTRIBUTES = [
  TenantIdKey,
  OrganizationIdKey,
  EnvironmentIdKey,
  EndpointIdKey,
  ChannelIdKey,
  DomainIdKey,
  InvitationIdKey,
  NextAttemptAtKey,
  DeliveryAttemptKey,
] as const;

/** The type of each attribute as the Temporal CLI spells it (`--search-attribute TenantId=Keyword`, `--type Keyword`). */
export const cliTypeOf = (key: (typeof SEARCH_ATTRIBUTES)[number]) => ({ KEYWORD: 'Keyword', DATETIME: 'Datetime', INT: 'Int' })[key.type];
