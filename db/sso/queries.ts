// What SSO sign-in reads and writes in one environment: the round-trip states, the identities linking directory
// users to upstream subjects, the SAML assertion ids already accepted, and the SP encryption key.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { uuid } from '../shared/rows.ts';
import { SpKey, SsoState, UserIdentity } from './rows.ts';

export interface NewSsoState {
  id: string;
  connectionId: string;
  interactionUid: string;
  returnUrl: string;
  codeVerifier?: string | null;
  nonce?: string | null;
  requestId?: string | null;
}

const SsoUser = z.object({ id: uuid, userName: z.string(), active: z.boolean() });
export type SsoUser = z.infer<typeof SsoUser>;

const identityColumns = sql.fragment`
  id, user_id AS "userId", connection_id AS "connectionId", subject, email, created_at AS "createdAt", last_sign_in_at AS "lastSignInAt"`;

/** Queries of one environment's SSO: every statement is bound to `environmentId`. */
export function createSsoQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    insertState: (s: NewSsoState) =>
      db.query(sql.unsafe`
        INSERT INTO sso_states (id, environment_id, connection_id, interaction_uid, return_url, code_verifier, nonce, request_id)
        VALUES (${s.id}, ${environmentId}, ${s.connectionId}, ${s.interactionUid}, ${s.returnUrl}, ${s.codeVerifier ?? null},
          ${s.nonce ?? null}, ${s.requestId ?? null})`),

    findState: (id: string) =>
      db.maybeOne(sql.type(SsoState)`
        SELECT id, connection_id AS "connectionId", interaction_uid AS "interactionUid", return_url AS "returnUrl",
          code_verifier AS "codeVerifier", nonce, request_id AS "requestId", expires_at <= now() AS expired, consumed_at AS "consumedAt"
        FROM sso_states WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** Marks the state used; false when it was used already or has expired (single use, atomically). */
    consumeState: async (id: string) =>
      (
        await db.query(sql.unsafe`
        UPDATE sso_states SET consumed_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id} AND consumed_at IS NULL AND expires_at > now()`)
      ).rowCount === 1,

    /** Records the user a consumed state resolved: its interaction's continuation may take it once (`takeContinuation`). */
    resolveState: (id: string, userId: string) =>
      db.query(sql.unsafe`UPDATE sso_states SET user_id = ${userId} WHERE environment_id = ${environmentId} AND id = ${id}`),

    /**
     * Takes (once, atomically) the SSO result waiting for interaction `interactionUid`: the user resolved by a state
     * consumed in the last 10 minutes and not continued yet; null when there is none.
     */
    takeContinuation: (interactionUid: string) =>
      db.maybeOne(sql.type(z.object({ userId: uuid, connectionId: uuid }))`
        UPDATE sso_states SET continued_at = now()
        WHERE environment_id = ${environmentId} AND interaction_uid = ${interactionUid} AND user_id IS NOT NULL
          AND continued_at IS NULL AND consumed_at > now() - interval '10 minutes'
        RETURNING user_id AS "userId", connection_id AS "connectionId"`),

    /** Drops states and assertion ids past their lifetime (called on each new round trip). */
    purgeExpired: async () => {
      await db.query(sql.unsafe`DELETE FROM sso_states WHERE environment_id = ${environmentId} AND expires_at < now() - interval '1 day'`);
      await db.query(sql.unsafe`DELETE FROM saml_assertion_ids WHERE environment_id = ${environmentId} AND expires_at < now()`);
    },

    /** Records an accepted assertion id until `expiresAt`; false when it was accepted before (a replay). */
    recordAssertion: async (connectionId: string, assertionId: string, expiresAt: string) =>
      (
        await db.query(sql.unsafe`
        INSERT INTO saml_assertion_ids (environment_id, connection_id, assertion_id, expires_at)
        VALUES (${environmentId}, ${connectionId}, ${assertionId}, ${expiresAt}::timestamptz)
        ON CONFLICT (connection_id, assertion_id) DO NOTHING`)
      ).rowCount === 1,

    assertionSeen: (connectionId: string, assertionId: string) =>
      db.exists(sql.unsafe`
        SELECT 1 FROM saml_assertion_ids WHERE environment_id = ${environmentId} AND connection_id = ${connectionId} AND assertion_id = ${assertionId}`),

    findIdentity: (connectionId: string, subject: string) =>
      db.maybeOne(sql.type(UserIdentity)`
        SELECT ${identityColumns} FROM user_identities
        WHERE environment_id = ${environmentId} AND connection_id = ${connectionId} AND subject = ${subject}`),

    insertIdentity: (i: { userId: string; connectionId: string; subject: string; email: string | null; profile: Record<string, unknown> }) =>
      db.one(sql.type(UserIdentity)`
        INSERT INTO user_identities (environment_id, user_id, connection_id, subject, email, profile)
        VALUES (${environmentId}, ${i.userId}, ${i.connectionId}, ${i.subject}, ${i.email}, ${sql.jsonb(i.profile as never)})
        RETURNING ${identityColumns}`),

    touchIdentity: (id: string, email: string | null, profile: Record<string, unknown>) =>
      db.query(sql.unsafe`
        UPDATE user_identities SET last_sign_in_at = now(), email = ${email}, profile = ${sql.jsonb(profile as never)}
        WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** The identities of a user, oldest first. */
    identitiesOf: async (userId: string) => [
      ...(await db.any(sql.type(UserIdentity)`
        SELECT ${identityColumns} FROM user_identities WHERE environment_id = ${environmentId} AND user_id = ${userId} ORDER BY created_at, id`)),
    ],

    findUser: (id: string) =>
      db.maybeOne(sql.type(SsoUser)`SELECT id, user_name AS "userName", active FROM users WHERE environment_id = ${environmentId} AND id = ${id}`),

    /** The user one of whose emails is `email` (emails are unique per environment). */
    findUserByEmail: (email: string) =>
      db.maybeOne(sql.type(SsoUser)`
        SELECT u.id, u.user_name AS "userName", u.active FROM users u
        JOIN user_emails e ON e.user_id = u.id AND e.environment_id = ${environmentId}
        WHERE u.environment_id = ${environmentId} AND e.email = lower(${email})`),

    userNameTaken: (userName: string) =>
      db.exists(sql.unsafe`SELECT 1 FROM users WHERE environment_id = ${environmentId} AND lower(user_name) = lower(${userName})`),

    findSpKey: () =>
      db.maybeOne(sql.type(SpKey)`
      SELECT private_key_encrypted AS "privateKeyEncrypted", certificate FROM sso_sp_keys WHERE environment_id = ${environmentId}`),

    /** Stores the key pair unless another instance stored one first; returns the one that is stored. */
    insertSpKey: async (key: SpKey) => {
      await db.query(sql.unsafe`
        INSERT INTO sso_sp_keys (environment_id, private_key_encrypted, certificate)
        VALUES (${environmentId}, ${key.privateKeyEncrypted}, ${key.certificate}) ON CONFLICT (environment_id) DO NOTHING`);
      return db.one(sql.type(SpKey)`
        SELECT private_key_encrypted AS "privateKeyEncrypted", certificate FROM sso_sp_keys WHERE environment_id = ${environmentId}`);
    },
  };
}

export type SsoQueries = ReturnType<typeof createSsoQueries>;
