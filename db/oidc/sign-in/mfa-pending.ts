// The first factor waiting for a second at an interaction (api/families/oidc/sign-in/second-factor.ts): a record of
// the provider's storage (oidc_payloads, model MfaPending, keyed by the interaction's uid). Counting a wrong code is
// one statement, so concurrent guesses cannot share a count.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const MFA_PENDING_MODEL = 'MfaPending';

export function createMfaPendingQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Counts a wrong code at interaction `uid`: the failures so far, or null when nothing waits there. */
    countFailure: (uid: string) =>
      db.maybeOneFirst(sql.type(z.object({ failures: z.number() }))`
        UPDATE oidc_payloads
        SET payload = jsonb_set(payload, '{failures}', to_jsonb(coalesce((payload->>'failures')::int, 0) + 1))
        WHERE environment_id = ${environmentId} AND model = ${MFA_PENDING_MODEL} AND id = ${uid} AND (expires_at IS NULL OR expires_at > now())
        RETURNING (payload->>'failures')::int AS failures`),
  };
}
