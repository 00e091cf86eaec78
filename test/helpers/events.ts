// What the service recorded, read the way a client reads it: a tenant's event stream
// (GET /v1/tenants/{id}/events) and the audit logs (GET …/audit-logs), every page of them.
import { sql } from 'slonik';
import { z } from 'zod';
import { expect } from 'vitest';
import { bearer, type TestApp } from './app.ts';

export interface StreamEvent {
  id: string;
  type: string;
  sequence: number;
  organizationId: string | null;
  tenantId: string | null;
  environmentId: string | null;
  actor: { type: string; id: string | null };
  subject: { type: string; id: string | null } | null;
  data: Record<string, unknown>;
  occurredAt: string;
}

export interface AuditEntry {
  id: string;
  sequence: number;
  organizationId: string | null;
  tenantId: string | null;
  environmentId: string | null;
  actor: { type: string; id: string | null };
  /** The user the actor acted as (impersonation), or null. */
  onBehalfOf: { type: string; id: string } | null;
  action: string;
  resource: { type: string; id: string | null };
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  changes: { before: Record<string, unknown> | null; after: Record<string, unknown> | null } | null;
  occurredAt: string;
}

export type Query = Record<string, string | string[]>;

const tokens = new WeakMap<TestApp, Promise<string>>();
/** A token of the bootstrap service account (scope `*`), fetched once per app. */
const defaultToken = (t: TestApp) => {
  if (!tokens.has(t)) tokens.set(t, t.token());
  return tokens.get(t)!;
};

/**
 * Waits until every transaction that began before this call has ended. The stream shows an event only once
 * every older transaction has ended (its commit horizon, db/events/events/queries.ts); past this point it
 * shows every event committed before the call, so a read can assert what is there and what is not.
 */
export async function pastCommitHorizon(t: TestApp) {
  const now = await t.pool.oneFirst(sql.type(z.object({ x: z.string() }))`SELECT pg_current_xact_id()::text AS x`);
  await expect
    .poll(() => t.pool.oneFirst(sql.type(z.object({ past: z.boolean() }))`SELECT pg_snapshot_xmin(pg_current_snapshot()) > ${now}::xid8 AS past`), {
      timeout: 15_000,
      interval: 10,
    })
    .toBe(true);
}

async function get(t: TestApp, url: string, query: Query, token: string) {
  const res = await t.app.inject({ method: 'GET', url, query, headers: bearer(token) });
  if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** Every event of the tenant's stream committed so far (filtered by `query`: type, environmentId…), oldest first. */
export async function tenantEvents(t: TestApp, tenantId: string, query: Query = {}, token?: string): Promise<StreamEvent[]> {
  await pastCommitHorizon(t);
  const auth = token ?? (await defaultToken(t));
  const events: StreamEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await get(t, `/v1/tenants/${tenantId}/events`, { ...query, limit: '200', ...(cursor ? { cursor } : {}) }, auth);
    events.push(...page.events);
    if (!page.hasMore) return events;
    cursor = page.nextCursor;
  }
}

/** Every audit entry of a tenant, or of an organization and its tenants (filtered by `query`: resourceId, action…), oldest first. */
export async function auditEntries(
  t: TestApp,
  scope: { tenantId: string } | { organizationId: string },
  query: Query = {},
  token?: string,
): Promise<AuditEntry[]> {
  const auth = token ?? (await defaultToken(t));
  const url = 'tenantId' in scope ? `/v1/tenants/${scope.tenantId}/audit-logs` : `/v1/organizations/${scope.organizationId}/audit-logs`;
  const entries: AuditEntry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await get(t, url, { ...query, limit: '200', ...(cursor ? { cursor } : {}) }, auth);
    entries.push(...page.auditLogs);
    if (!page.nextCursor) return entries.reverse();
    cursor = page.nextCursor;
  }
}
