// The provider's records (oidc-provider adapter models) of one environment, in oidc_payloads.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Payload = z.object({ payload: z.record(z.string(), z.unknown()), consumedAt: z.string().nullable() });
const ModelPayload = Payload.extend({ model: z.string() });
const SessionPayload = Payload.extend({ ended: z.boolean() });

export interface PayloadRecord {
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  accountId: string | null;
  clientId: string | null;
  expiresAt: Date | null;
}

/** The upsert of one record, as a fragment (a statement may carry it in a CTE: ./sessions.ts). */
export const payloadUpsert = (environmentId: string, model: string, id: string, r: PayloadRecord) => sql.fragment`
  INSERT INTO oidc_payloads (environment_id, model, id, payload, grant_id, uid, user_code, account_id, client_id, expires_at)
  VALUES (${environmentId}, ${model}, ${id}, ${sql.jsonb(r.payload as never)}, ${r.grantId}, ${r.uid}, ${r.userCode},
    ${r.accountId}, ${r.clientId}, ${r.expiresAt ? sql.timestamp(r.expiresAt) : null})
  ON CONFLICT (environment_id, model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
    uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, account_id = EXCLUDED.account_id, client_id = EXCLUDED.client_id,
    expires_at = EXCLUDED.expires_at`;

export function createOidcPayloadQueries(db: CommonQueryMethods, environmentId: string) {
  const live = sql.fragment`(expires_at IS NULL OR expires_at > now())`;
  const one = (where: ReturnType<typeof sql.fragment>) =>
    db.maybeOne(sql.type(Payload)`
      SELECT payload, consumed_at AS "consumedAt" FROM oidc_payloads
      WHERE environment_id = ${environmentId} AND ${where} AND ${live}`);
  return {
    upsert: (model: string, id: string, r: PayloadRecord) => db.query(sql.unsafe`${payloadUpsert(environmentId, model, id, r)}`),

    find: (model: string, id: string) => one(sql.fragment`model = ${model} AND id = ${id}`),
    /** The live records of `id` in any of `models` (a token looked up in each of its kinds at once). */
    findAmong: (models: readonly string[], id: string) =>
      db.any(sql.type(ModelPayload)`
        SELECT model, payload, consumed_at AS "consumedAt" FROM oidc_payloads
        WHERE environment_id = ${environmentId} AND model = ANY(${sql.array([...models], 'text')}) AND id = ${id} AND ${live}`),
    /**
     * A Session record with whether the directory ended it: revoked, or idle longer than `idleSeconds` (its
     * directory_sessions row; none means not ended). One statement for what the provider reads on every authorization.
     */
    findSession: (id: string, idleSeconds: number) =>
      db.maybeOne(sql.type(SessionPayload)`
        SELECT p.payload, p.consumed_at AS "consumedAt",
          coalesce(d.revoked_at IS NOT NULL OR d.last_active_at < now() - make_interval(secs => ${idleSeconds}), false) AS ended
        FROM oidc_payloads p
        LEFT JOIN directory_sessions d ON d.environment_id = p.environment_id AND d.session_uid = p.payload->>'uid'
        WHERE p.environment_id = ${environmentId} AND p.model = 'Session' AND p.id = ${id}
          AND (p.expires_at IS NULL OR p.expires_at > now())`),
    findByUid: (model: string, uid: string) => one(sql.fragment`model = ${model} AND uid = ${uid}`),
    findByUserCode: (model: string, userCode: string) => one(sql.fragment`model = ${model} AND user_code = ${userCode}`),

    destroy: (model: string, id: string) =>
      db.query(sql.unsafe`DELETE FROM oidc_payloads WHERE environment_id = ${environmentId} AND model = ${model} AND id = ${id}`),

    /** Deletes a record and returns what it held (for the audit of a revocation). */
    destroyReturning: (model: string, id: string) =>
      db.maybeOne(sql.type(z.object({ payload: z.record(z.string(), z.unknown()) }))`
        DELETE FROM oidc_payloads WHERE environment_id = ${environmentId} AND model = ${model} AND id = ${id} RETURNING payload`),

    consume: (model: string, id: string) =>
      db.query(sql.unsafe`
        UPDATE oidc_payloads SET consumed_at = now()
        WHERE environment_id = ${environmentId} AND model = ${model} AND id = ${id} AND consumed_at IS NULL`),

    /** Every record of a grant (tokens, codes, the grant itself). */
    revokeByGrantId: (grantId: string) => db.query(sql.unsafe`DELETE FROM oidc_payloads WHERE environment_id = ${environmentId} AND grant_id = ${grantId}`),
  };
}
