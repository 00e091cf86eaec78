// What every MFA service takes: the environment (with its tenant, for the audit entry) and where the request came
// from; and the recorder of a user's own change or failure (actor: the user).
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { recordChange, type RequestOrigin } from '../../db/shared/changes.ts';
import type { EventOf, EventType } from '../../db/event-catalog.ts';
import type { MFA_FAILURE_REASONS } from '../../db/mfa/events.ts';

/** The environment a sign-in page serves (its Provider's snapshot gives the tenant), and the request's origin. */
export interface MfaEnv {
  tenantId: string;
  environmentId: string;
  origin?: RequestOrigin;
}

export type MfaFailureReason = (typeof MFA_FAILURE_REASONS)[number];
/** A check a person can fail: ok, or why not (the reason is evented, the page shows its own words). */
export type MfaCheck<T extends object = object> = ({ ok: true } & T) | { ok: false; reason: MfaFailureReason };

/** Records the user's own change (audit entry + event) in the transaction. */
export const recordUser = <T extends EventType>(db: CommonQueryMethods, env: MfaEnv, userId: string, action: string, event: EventOf<T>) =>
  recordChange<T>(db, {
    actor: { type: 'user', id: userId },
    origin: env.origin ?? {},
    action,
    resource: { type: 'user', id: userId },
    scope: { tenantId: env.tenantId, environmentId: env.environmentId },
    event,
  });

/** Records a failed check (`user.mfa_failed`) in its own transaction and answers the refusal. */
export async function refuse(
  pool: DatabasePool,
  env: MfaEnv,
  userId: string,
  factor: 'totp' | 'recovery_code' | 'remember_device',
  stage: 'enrolment' | 'verification',
  reason: MfaFailureReason,
): Promise<{ ok: false; reason: MfaFailureReason }> {
  await pool.transaction((trx) =>
    recordUser(trx, env, userId, 'user.mfa_failed', {
      type: 'user.mfa_failed',
      data: { userId, factor, stage, reason, ip: env.origin?.ip ?? null },
    }),
  );
  return { ok: false, reason };
}
