import { sql, type CommonQueryMethods } from 'slonik';
import { PersonalAccessToken } from '../credentials-rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  id, name, environment_id AS "environmentId", user_id AS "userId", slug, prefix, expires_at AS "expiresAt",
  last_used_at AS "lastUsedAt", revoked_at AS "revokedAt", created_at AS "createdAt", updated_at AS "updatedAt",
  (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())) AS active, scopes`;

export interface NewPersonalAccessToken {
  userId: string;
  environmentId: string;
  name: string;
  slug: string;
  prefix: string;
  tokenHash: Buffer;
  scopes: string[];
  expiresAt: string | null;
}

export function createPersonalAccessTokenQueries(db: CommonQueryMethods) {
  return {
    // unscoped: authentication; the hash of the presented token selects the token, and with it its environment.
    findPersonalAccessTokenByHash: (tokenHash: Buffer) =>
      db.maybeOne(sql.type(PersonalAccessToken)`SELECT ${columns} FROM personal_access_tokens WHERE token_hash = ${sql.binary(tokenHash)}`),

    findPersonalAccessTokenOfUser: (environmentId: string, id: string, userId: string) =>
      db.maybeOne(sql.type(PersonalAccessToken)`
        SELECT ${columns} FROM personal_access_tokens WHERE environment_id = ${environmentId} AND id = ${id} AND user_id = ${userId}`),

    findPersonalAccessTokensOfUser: (userId: string, page: PageRequest) =>
      selectPage(
        db,
        PersonalAccessToken,
        sql.fragment`SELECT ${columns} FROM personal_access_tokens WHERE user_id = ${userId}`,
        sql.fragment`created_at DESC, id`,
        page,
      ),

    insertPersonalAccessToken: (pat: NewPersonalAccessToken) =>
      db.one(sql.type(PersonalAccessToken)`
        INSERT INTO personal_access_tokens (user_id, environment_id, name, slug, prefix, token_hash, scopes, expires_at)
        VALUES (${pat.userId}, ${pat.environmentId}, ${pat.name}, ${pat.slug}, ${pat.prefix}, ${sql.binary(pat.tokenHash)},
          ${sql.array(pat.scopes, 'text')}, ${pat.expiresAt})
        RETURNING ${columns}`),

    revokePersonalAccessToken: (environmentId: string, id: string) =>
      db.one(sql.type(PersonalAccessToken)`
        UPDATE personal_access_tokens SET revoked_at = coalesce(revoked_at, now()), updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id} RETURNING ${columns}`),

    // unscoped: authentication marks the token it has just found by its hash; the id came from that row.
    touchPersonalAccessToken: (id: string) => db.query(sql.unsafe`UPDATE personal_access_tokens SET last_used_at = now() WHERE id = ${id}`),
  };
}
