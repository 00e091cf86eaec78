// What the sweeper (worker/sweeper.ts) looks at: rows that should have a running process (pending invitations,
// domains pending verification, pending deliveries) with no start or message for it waiting in the outbox.
// Oldest first, and only rows older than `graceMs`, so a row whose start is just being carried out is left alone.
// One query per SweepQuery (lib/processes/lookups.ts), which each kind's definition names for its sweep.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { SweepQuery, SweepRows } from '../../lib/processes/lookups.ts';
import { createOidcCleanupSingletonQueries } from '../oidc/cleanup/singleton.ts';
import { createRetentionQueries } from './retention.ts';
import { DEFAULT_SYNC_INTERVAL_MS } from '../billing/rows.ts';

const Invitation = z.object({ id: z.uuid(), expiresAt: z.number() });
const ElevateRequest = z.object({ id: z.uuid(), tenantId: z.uuid(), createdAt: z.number(), expiresAt: z.number(), escalate: z.boolean() });
const ElevateGrant = z.object({ id: z.uuid(), tenantId: z.uuid(), until: z.number() });
const Domain = z.object({ id: z.uuid(), tenantId: z.uuid() });
const ImpersonationGrant = z.object({ id: z.uuid(), tenantId: z.uuid(), expiresAt: z.number() });
const RetiringKey = z.object({ id: z.uuid(), tenantId: z.uuid(), retiresAt: z.number() });
const Delivery = z.object({
  id: z.uuid(),
  tenantId: z.uuid(),
  batchId: z.uuid().nullable(),
  attemptCount: z.number(),
  nextDelayMs: z.number(),
});

const Environment = z.object({ id: z.uuid(), tenantId: z.uuid() });
const QueuedMessage = z.object({ id: z.uuid(), tenantId: z.uuid(), providers: z.array(z.string()), scheduleMs: z.array(z.number()) });

const BillingSync = z.object({ id: z.uuid(), tenantId: z.uuid(), intervalMs: z.number() });

const noOutboxEntry = (processId: ReturnType<typeof sql.fragment>) =>
  sql.fragment`NOT EXISTS (SELECT 1 FROM process_outbox o WHERE o.process_id = ${processId})`;

// unscoped: the sweeper is cross-scope system work: it finds, in every scope, the rows whose process is missing.
export function createSweepQueries(db: CommonQueryMethods): { [Q in SweepQuery]: (graceMs: number, limit: number) => Promise<SweepRows[Q][]> } {
  return {
    pendingInvitations: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(Invitation)`
        SELECT i.id, (extract(epoch FROM i.expires_at) * 1000)::float8 AS "expiresAt" FROM organization_invitations i
        WHERE i.status = 'pending' AND i.created_at < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'invitation-expiry:' || i.id`)}
        ORDER BY i.created_at LIMIT ${limit}`)),
    ],

    /** Impersonation grants neither revoked nor marked expired: their process marks them expired when due. */
    pendingImpersonationGrants: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(ImpersonationGrant)`
        SELECT g.id, g.tenant_id AS "tenantId", (extract(epoch FROM g.expires_at) * 1000)::float8 AS "expiresAt" FROM impersonation_grants g
        WHERE g.expired_at IS NULL AND g.revoked_at IS NULL AND g.created_at < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'impersonation-expiry:' || g.id`)}
        ORDER BY g.created_at LIMIT ${limit}`)),
    ],

    /** Pending access requests (elevate), with what their process starts from. */
    pendingElevateRequests: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(ElevateRequest)`
        SELECT r.id, e.tenant_id AS "tenantId", (extract(epoch FROM r.created_at) * 1000)::float8 AS "createdAt",
          (extract(epoch FROM r.expires_at) * 1000)::float8 AS "expiresAt", cardinality(p.escalation_channel_ids) > 0 AS escalate
        FROM elevate_requests r JOIN elevate_policies p ON p.id = r.policy_id JOIN environments e ON e.id = r.environment_id
        WHERE r.state = 'pending' AND r.created_at < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'elevate-request:' || r.id`)}
        ORDER BY r.created_at LIMIT ${limit}`)),
    ],

    /** Open grants (approved or active), with the end of their current phase. */
    openElevateGrants: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(ElevateGrant)`
        SELECT g.id, e.tenant_id AS "tenantId",
          (extract(epoch FROM CASE WHEN g.state = 'active' THEN g.expires_at ELSE g.activation_deadline END) * 1000)::float8 AS until
        FROM elevate_grants g JOIN environments e ON e.id = g.environment_id
        WHERE g.state IN ('approved', 'active') AND g.created_at < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'elevate-grant:' || g.id`)}
        ORDER BY g.created_at LIMIT ${limit}`)),
    ],

    /** Domains still waiting for verification: not verified, and their process has not given up. */
    pendingDomains: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(Domain)`
        SELECT d.id, d.tenant_id AS "tenantId" FROM tenant_domains d
        WHERE NOT d.verified AND d.verification_failed_at IS NULL AND d.created_at < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'domain-verification:' || d.id`)}
        ORDER BY d.created_at LIMIT ${limit}`)),
    ],

    /** Trust-store keys retiring after a rotation, which their trust-store-key-retirement process retires at retiresAt. */
    retiringKeys: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(RetiringKey)`
        SELECT k.id, v.tenant_id AS "tenantId", (extract(epoch FROM k.retires_at) * 1000)::float8 AS "retiresAt"
        FROM trust_store_keys k JOIN environments v ON v.id = k.environment_id
        WHERE k.status = 'retiring' AND k.updated_at < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'trust-store-key-retirement:' || k.id`)}
        ORDER BY k.updated_at LIMIT ${limit}`)),
    ],

    /**
     * Pending deliveries whose process was started: a batch's (no attempt yet) or their own (from the second
     * attempt), with the delay until their next attempt; only those overdue by `graceMs` (their attempt due and not
     * made), from the index on the due time: a retry waiting for its time is never read.
     */
    pendingDeliveries: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(Delivery)`
        SELECT d.id, d.tenant_id AS "tenantId", d.batch_id AS "batchId", d.attempt_count AS "attemptCount",
          greatest(0, coalesce(extract(epoch FROM d.next_attempt_at - now()) * 1000, 0))::float8 AS "nextDelayMs"
        FROM deliveries d
        WHERE d.status = 'pending' AND d.process_started AND coalesce(d.next_attempt_at, d.created_at) < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'webhook-delivery:' || d.id`)}
          AND (d.batch_id IS NULL OR ${noOutboxEntry(sql.fragment`'delivery-batch:' || d.batch_id`)})
        ORDER BY coalesce(d.next_attempt_at, d.created_at) LIMIT ${limit}`)),
    ],

    /**
     * Environments with directory-sync work waiting (a deprovisioning, a due lifecycle change) and no start or message
     * for their process in the outbox: a process that ended or failed leaves them to the sweeper.
     */
    pendingDirectorySyncs: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(Environment)`
        SELECT e.id, e.tenant_id AS "tenantId" FROM environments e
        WHERE e.id IN (
            SELECT environment_id FROM directory_deprovisionings WHERE done_at IS NULL AND created_at < now() - ${graceMs} * interval '1 millisecond'
            UNION SELECT environment_id FROM directory_lifecycle_changes WHERE applied_at IS NULL AND due_at < now() - ${graceMs} * interval '1 millisecond')
          AND ${noOutboxEntry(sql.fragment`'directory-sync:' || e.id`)}
        LIMIT ${limit}`)),
    ],

    /** Messages still queued (neither sent nor given up), with the providers and schedule they were queued with. */
    queuedMessages: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(QueuedMessage)`
        SELECT m.id, e.tenant_id AS "tenantId", m.providers, m.retry_schedule_ms AS "scheduleMs"
        FROM messages m JOIN environments e ON e.id = m.environment_id
        WHERE m.status = 'queued' AND m.created_at < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'message-send:' || m.id`)}
        ORDER BY m.created_at LIMIT ${limit}`)),
    ],

    /** Vanity domains, whatever their status: each has its process until it is removed. */
    vanityDomains: async (graceMs: number, limit: number) => [
      ...(await db.any(sql.type(Environment)`
        SELECT d.id, e.tenant_id AS "tenantId" FROM vanity_domains d JOIN environments e ON e.id = d.environment_id
        WHERE d.updated_at < now() - ${graceMs} * interval '1 millisecond'
          AND ${noOutboxEntry(sql.fragment`'vanity-domain:' || d.id`)}
        ORDER BY d.updated_at LIMIT ${limit}`)),
    ],

    /** The deployment's OIDC clean-up, unless a start of it waits in the outbox (it has no row to age). */
    oidcCleanup: () => createOidcCleanupSingletonQueries(db).sweepRow(),

    /** The deployment's retention process, unless a start of it waits in the outbox. */
    retention: () => createRetentionQueries(db).sweepRow(),

    billingSyncs: async (_graceMs: number, limit: number) => [
      ...(await db.any(sql.type(BillingSync)`
        SELECT e.id, e.tenant_id AS "tenantId", coalesce(b.interval_ms, ${DEFAULT_SYNC_INTERVAL_MS}) AS "intervalMs"
        FROM add_ons a JOIN environments e ON e.id = a.environment_id LEFT JOIN billing_syncs b ON b.environment_id = e.id
        WHERE a.kind = 'stripe' AND a.active AND ${noOutboxEntry(sql.fragment`'billing-sync:' || e.id`)}
        ORDER BY e.id LIMIT ${limit}`)),
    ],
  } satisfies { [Q in SweepQuery]: (graceMs: number, limit: number) => Promise<SweepRows[Q][]> };
}
