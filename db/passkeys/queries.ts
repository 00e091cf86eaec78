// Passkeys of one environment's directory users: every statement is bound to `environmentId`. The public key is read
// only by the ceremony that verifies an assertion (`findByCredentialId`), never by a listing.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../shared/pages.ts';
import { Passkey, StoredPasskey } from './rows.ts';

const columns = sql.fragment`
  p.id, p.user_id AS "userId", p.name, p.device_type AS "deviceType", p.backed_up AS "backedUp", p.transports,
  p.aaguid, p.created_at AS "createdAt", p.last_used_at AS "lastUsedAt"`;

const Excluded = z.object({ credentialId: z.string(), transports: z.array(z.string()) });
const CeremonyUser = z.object({ userName: z.string(), displayName: z.string().nullable(), active: z.boolean(), environmentName: z.string() });

export interface NewPasskey {
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  aaguid: string | null;
  name: string;
}

export function createPasskeyQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** The user a ceremony is for, with the name of the environment (of `tenantId`): the relying party's name browsers show. */
    ceremonyUser: (userId: string, tenantId: string) =>
      db.maybeOne(sql.type(CeremonyUser)`
        SELECT u.user_name AS "userName", u.display_name AS "displayName", u.active, e.name AS "environmentName"
        FROM users u JOIN environments e ON e.id = u.environment_id AND e.tenant_id = ${tenantId}
        WHERE u.environment_id = ${environmentId} AND u.id = ${userId}`),

    /** One page of the user's passkeys, oldest first. */
    pageOfUser: (userId: string, page: PageRequest) =>
      selectPage(
        db,
        Passkey,
        sql.fragment`SELECT ${columns} FROM user_passkeys p WHERE p.environment_id = ${environmentId} AND p.user_id = ${userId}`,
        sql.fragment`"createdAt", id`,
        page,
      ),

    /** The credential ids (and transports) the user already registered: a registration excludes them. */
    credentialsOfUser: async (userId: string) => [
      ...(await db.any(sql.type(Excluded)`
        SELECT credential_id AS "credentialId", transports FROM user_passkeys
        WHERE environment_id = ${environmentId} AND user_id = ${userId} ORDER BY created_at, id`)),
    ],

    /** The passkey of a credential id with its key, counter and whether its user is active. */
    findByCredentialId: (credentialId: string) =>
      db.maybeOne(sql.type(StoredPasskey)`
        SELECT ${columns}, p.credential_id AS "credentialId", p.public_key AS "publicKey", p.counter, u.active AS "userActive"
        FROM user_passkeys p JOIN users u ON u.id = p.user_id AND u.environment_id = p.environment_id
        WHERE p.environment_id = ${environmentId} AND p.credential_id = ${credentialId}`),

    /** Stores a new passkey; null when the environment already holds its credential id. */
    insert: (passkey: NewPasskey) =>
      db.maybeOne(sql.type(Passkey)`
        INSERT INTO user_passkeys AS p (environment_id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, aaguid, name)
        VALUES (${environmentId}, ${passkey.userId}, ${passkey.credentialId}, ${sql.binary(Buffer.from(passkey.publicKey))}, ${passkey.counter},
          ${sql.array(passkey.transports, 'text')}, ${passkey.deviceType}, ${passkey.backedUp}, ${passkey.aaguid}, ${passkey.name})
        ON CONFLICT (environment_id, credential_id) DO NOTHING
        RETURNING ${columns}`),

    /**
     * Records a verified use: the new counter, backup state and `last_used_at`, only if the counter moved forward
     * (or both are zero: an authenticator without a counter). Null when another use got there first with the same or a
     * higher counter, so two assertions with one counter value never both succeed.
     */
    recordUse: (id: string, counter: number, backedUp: boolean) =>
      db.maybeOne(sql.type(Passkey)`
        UPDATE user_passkeys p SET counter = ${counter}, backed_up = ${backedUp}, last_used_at = now()
        WHERE p.environment_id = ${environmentId} AND p.id = ${id} AND (p.counter < ${counter} OR (p.counter = 0 AND ${counter}::bigint = 0))
        RETURNING ${columns}`),

    find: (userId: string, id: string, lock = false) =>
      db.maybeOne(sql.type(Passkey)`
        SELECT ${columns} FROM user_passkeys p WHERE p.environment_id = ${environmentId} AND p.user_id = ${userId} AND p.id = ${id}
        ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    rename: (userId: string, id: string, name: string) =>
      db.maybeOne(sql.type(Passkey)`
        UPDATE user_passkeys p SET name = ${name} WHERE p.environment_id = ${environmentId} AND p.user_id = ${userId} AND p.id = ${id}
        RETURNING ${columns}`),

    remove: (userId: string, id: string) =>
      db.maybeOne(sql.type(Passkey)`
        DELETE FROM user_passkeys p WHERE p.environment_id = ${environmentId} AND p.user_id = ${userId} AND p.id = ${id}
        RETURNING ${columns}`),
  };
}
