// The audit entry and event of a ceremony's outcome. The actor is the user the ceremony is for (null for a
// discoverable sign-in whose credential is unknown): the pages act for the person in the browser.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { recordChange, type RequestOrigin } from '../../db/shared/changes.ts';
import type { EventOf } from '../../db/event-catalog.ts';

/** The environment a ceremony runs in, as the sign-in pages know it (the Provider's snapshot holds the tenant). */
export interface PasskeyEnvironment {
  environmentId: string;
  tenantId: string;
}

export interface Outcome {
  userId: string | null;
  passkeyId?: string | null;
  event: EventOf;
  after?: Record<string, unknown>;
}

/** Records the outcome inside `db`'s transaction. */
export const recordOutcome = (db: CommonQueryMethods, env: PasskeyEnvironment, origin: RequestOrigin, outcome: Outcome) =>
  recordChange(db, {
    actor: { type: 'user', id: outcome.userId },
    origin,
    action: outcome.event.type,
    resource: outcome.passkeyId ? { type: 'passkey', id: outcome.passkeyId } : { type: 'user', id: outcome.userId },
    scope: { tenantId: env.tenantId, environmentId: env.environmentId },
    after: outcome.after ?? null,
    event: outcome.event,
  });

/** Records a refusal in its own transaction (nothing else changes). */
export const recordRefusal = (pool: DatabasePool, env: PasskeyEnvironment, origin: RequestOrigin, outcome: Outcome) =>
  pool.transaction((trx) => recordOutcome(trx, env, origin, outcome));
