// A user outside every organization, with a personal access token: the invitee of tenant seats.
import { displayPrefix, generateCredential, hashSecret } from '../../lib/crypto.ts';
import { createPersonalAccessTokenQueries } from '../../db/identity/personal-access-tokens/queries.ts';
import { createUserQueries } from '../../db/identity/users/queries.ts';
import type { TestApp } from './app.ts';

export async function seatUser(t: TestApp, options: { email?: string; scopes?: string[] } = {}) {
  const email = options.email ?? `guest-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const scopes = options.scopes ?? ['tenants:write', 'events:read'];
  const user = await createUserQueries(t.pool).insertVerifiedUser({
    environmentId: t.credentials.environmentId,
    userName: email,
    displayName: 'Guest',
    email,
    managementScopes: scopes,
  });
  const token = generateCredential('adpat');
  await createPersonalAccessTokenQueries(t.pool).insertPersonalAccessToken({
    userId: user.id,
    environmentId: t.credentials.environmentId,
    name: 'guest',
    slug: 'guest',
    prefix: displayPrefix(token),
    tokenHash: hashSecret(token),
    scopes,
    expiresAt: null,
  });
  return { user, email, token };
}
