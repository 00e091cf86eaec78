// Search attributes set on every Temporal workflow, so operators can find a tenant's processes in the UI
// (`TenantId = '<uuid>'`). The compose init job registers each key in the namespace (Keyword = exact match).
// Values are stored unencrypted: ids only, never PII.
// A key is a plain `{ name, type }` (what `defineSearchAttributeKey` returns): the type-only import keeps this
// folder free of runtime imports other than @temporalio/workflow (DESIGN §3).
import type { defineSearchAttributeKey } from '@temporalio/common';

type KeywordKey = ReturnType<typeof defineSearchAttributeKey<'KEYWORD'>>;

export const TenantIdKey: KeywordKey = { name: 'TenantId', type: 'KEYWORD' };
export const OrganizationIdKey: KeywordKey = { name: 'OrganizationId', type: 'KEYWORD' };

/** Every search attribute the workflows set: registered at start by `npm run temporal:start` and the test server. */
export const SEARCH_ATTRIBUTE_KEYS: readonly KeywordKey[] = [TenantIdKey, OrganizationIdKey];
