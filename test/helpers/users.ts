// User principals made through the real query layer: an operator user of the bootstrap environment with a
// personal access token, optionally a member of an organization, with a verified (or unverified) email.
import { sql } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../../lib/crypto.ts';
import { createOrganizationQueries } from '../../db/organizations/organizations/queries.ts';
import { createPersonalAccessTokenQueries } from '../../db/identity/personal-access-tokens/queries.ts';
import { createUserQueries } from '../../db/identity/users/queries.ts';
import type { TestApp } from './app.ts';

export interface UserOptions {
  email?: string;
  /** Unique per environment; defaults to the email. */
  userName?: string;
  /** Management scopes of the user and its token (default `*`). */
  scopes?: string[];
  verified?: boolean;
  /** Makes the user an active member of this organization. */
  organizationId?: string;
  role?: string;
  /** The environment the user lives in (default: the bootstrap environment, where operators live). */
  environmentId?: string;
}

export async function userPrincipal(t: TestApp, options: UserOptions = {}) {
  const email = options.email ?? `user-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const scopes = options.scopes ?? ['*'];
  const environmentId = options.environmentId ?? t.credentials.environmentId;
  const user = await createUserQueries(t.pool).insertVerifiedUser({
    environmentId,
    userName: options.userName ?? email,
    displayName: `User ${email}`,
    email,
    managementScopes: scopes,
  });
  if (options.verified === false) {
    await t.pool.query(sql.unsafe`
      UPDATE users SET verifications = (SELECT jsonb_agg(v || '{"verified": false}') FROM jsonb_array_elements(verifications) v) WHERE id = ${user.id}`);
  }
  if (options.organizationId) {
    await createOrganizationQueries(t.pool).insertMember({ organizationId: options.organizationId, userId: user.id, role: options.role ?? 'member' });
  }
  const token = generateCredential('adpat');
  await createPersonalAccessTokenQueries(t.pool).insertPersonalAccessToken({
    userId: user.id,
    environmentId,
    name: 'test',
    slug: 'test',
    prefix: displayPrefix(token),
    tokenHash: hashSecret(token),
    scopes,
    expiresAt: null,
  });
  return { user, email, token };
}

/** Marks every email of the user verified (what an email verification flow would do). */
export const verifyEmails = (t: TestApp, userId: string) =>
  t.pool.query(sql.unsafe`
    UPDATE users SET verifications = (SELECT jsonb_agg(v || '{"verified": true}') FROM jsonb_array_elements(verifications) v) WHERE id = ${userId}`);
