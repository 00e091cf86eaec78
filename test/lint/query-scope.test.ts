// Scope in every query: a statement that reads or changes rows of an environment, tenant or organization names that
// scope in its SQL (query factories are bound to it), or its function says why not with an `unscoped:` comment.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unscopedStatements } from '../helpers/sql-scope.ts';

const root = path.resolve(import.meta.dirname, '../..');

// Families whose queries are not yet bound to their scope, by `file#function`. The list only shrinks: an entry that
// no longer needs to be here fails the test, so it is removed when its family is converted.
const PENDING = new Set<string>([
  'db/access/api-secrets/access.ts#touchSecret',
  'db/access/api-secrets/queries.ts#byId',
  'db/access/api-secrets/queries.ts#delete',
  'db/access/api-secrets/queries.ts#revoke',
  'db/access/api-secrets/queries.ts#rotate',
  'db/access/api-secrets/queries.ts#update',
  'db/access/authzen/decisions.ts#deleteDecisionsBefore',
  'db/access/authzen/decisions.ts#findDecisions',
  'db/access/elevate/grants.ts#activate',
  'db/access/elevate/grants.ts#endOf',
  'db/access/elevate/grants.ts#expireIfDue',
  'db/access/elevate/grants.ts#extend',
  'db/access/elevate/grants.ts#findGrantById',
  'db/access/elevate/grants.ts#lockGrant',
  'db/access/elevate/grants.ts#revoke',
  'db/access/elevate/grants.ts#row',
  'db/access/elevate/policies.ts#changedBy',
  'db/access/elevate/policies.ts#deletePolicy',
  'db/access/elevate/policies.ts#lockPolicy',
  'db/access/elevate/policies.ts#updatePolicy',
  'db/access/elevate/requests.ts#expireIfDue',
  'db/access/elevate/requests.ts#findRequestById',
  'db/access/elevate/requests.ts#isAmong',
  'db/access/elevate/requests.ts#lockRequest',
  'db/access/elevate/requests.ts#managementScopesOf',
  'db/access/elevate/requests.ts#row',
  'db/access/elevate/requests.ts#settle',
  'db/access/impersonation/queries.ts#byId',
  'db/access/impersonation/queries.ts#expireIfDue',
  'db/access/impersonation/queries.ts#revoke',
  'db/access/impersonation/queries.ts#row',
  'db/access/impersonation/queries.ts#tenantOf',
  'db/access/impersonation/revoke.ts#ids',
  'db/events/audit-logs/queries.ts#findEntries',
  'db/events/webhooks/deliveries.ts#applyOutcomes',
  'db/events/webhooks/deliveries.ts#findDeliveries',
  'db/events/webhooks/deliveries.ts#findDelivery',
  'db/events/webhooks/deliveries.ts#settleAllPendingOfEndpoint',
  'db/events/webhooks/deliveries.ts#settleCutShort',
  'db/events/webhooks/queries.ts#changed',
  'db/events/webhooks/queries.ts#deleteEndpoint',
  'db/events/webhooks/queries.ts#findEndpointById',
  'db/events/webhooks/queries.ts#lockEndpoint',
  'db/events/webhooks/queries.ts#markFailing',
  'db/events/webhooks/queries.ts#markHealthy',
  'db/events/webhooks/queries.ts#one',
  'db/events/webhooks/queries.ts#updateEndpoint',
  'db/mcp/trust-store/entries.ts#byId',
  'db/mcp/trust-store/entries.ts#delete',
  'db/mcp/trust-store/entries.ts#update',
  'db/mcp/trust-store/keys.ts#byId',
  'db/mcp/trust-store/keys.ts#find',
  'db/mcp/trust-store/keys.ts#ofEntry',
  'db/mcp/trust-store/keys.ts#retireActive',
  'db/mcp/trust-store/keys.ts#retireIfDue',
  'db/mcp/trust-store/keys.ts#revoke',
  'db/processes/dispatch.ts#markBatchStarted',
  'db/processes/dispatch.ts#renewOutboxLeases',
  'db/processes/dispatch.ts#rows',
  'db/processes/outbox.ts#fail',
  'db/processes/outbox.ts#list',
  'db/processes/outbox.ts#release',
  'db/processes/outbox.ts#remove',
  'db/processes/outbox.ts#retry',
  'db/processes/sweep.ts#pendingImpersonationGrants',
  'db/processes/sweep.ts#pendingInvitations',
]);

describe('query scope', () => {
  const violations = unscopedStatements(root);
  const key = (v: { file: string; fn: string }) => `${v.file}#${v.fn}`;

  it('every statement on a scoped table names its scope or says why not', () => {
    const unexpected = violations.filter((v) => !PENDING.has(key(v))).map((v) => `${v.file}:${v.line} ${v.fn} [${v.tables.join(', ')}] ${v.statement}`);
    expect(unexpected).toEqual([]);
  });

  it('lists no pending function that is already scoped', () => {
    const still = new Set(violations.map(key));
    expect([...PENDING].filter((p) => !still.has(p))).toEqual([]);
  });

  it('catches a statement that forgets its scope', async () => {
    const { unscopedStatements: scan } = await import('../helpers/sql-scope.ts');
    const fixture = path.join(import.meta.dirname, '../fixtures/query-scope');
    expect(scan(fixture).map((v) => v.fn)).toEqual(['forgetsScope']);
  });
});
