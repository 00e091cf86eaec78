import type { DatabasePool } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../../../../lib/crypto.ts';
import { createPersonalAccessTokenQueries } from '../../../../db/identity/personal-access-tokens/queries.ts';
import { createUserQueries } from '../../../../db/identity/users/queries.ts';
import { ApiError, invalidField, notFound, orNotFound } from '../../../errors.ts';
import { narrow } from '../../../scopes.ts';
import { record, type Caller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

export const slugify = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'token';

/** The caller as a user: personal access tokens belong to users only. */
function userOf(caller: Caller) {
  if (caller.principal.type !== 'user' || !caller.principal.environmentId) {
    throw new ApiError(403, 'auth.user_required', 'Only a user principal has personal access tokens; this token belongs to a service account.');
  }
  return { userId: caller.principal.id, environmentId: caller.principal.environmentId };
}

export function createPersonalAccessTokenService(pool: DatabasePool) {
  return {
    list: (caller: Caller, query: PageQuery) =>
      listPage('tokens', query, (page) => createPersonalAccessTokenQueries(pool).findPersonalAccessTokensOfUser(userOf(caller).userId, page)),

    create: async (caller: Caller, input: { name: string; expiresAt?: string | null; scopes?: string[] }) => {
      const { userId, environmentId } = userOf(caller);
      if (input.expiresAt && Date.parse(input.expiresAt) <= Date.now()) throw invalidField('body.expiresAt', 'must be in the future');
      const user = await createUserQueries(pool).findUserAccess(userId);
      if (!user) throw notFound('user', userId);
      const scopes = input.scopes ?? user.managementScopes;
      // A token never holds more than its user, nor more than the token used to create it.
      const beyond = scopes.filter((s) => narrow(user.managementScopes, [s]).length === 0 || narrow(caller.principal.scopes, [s]).length === 0);
      if (beyond.length > 0)
        throw invalidField('body.scopes', `includes scopes the user does not hold: ${beyond.join(', ')}`, 'personal_access_token.scope_not_held');
      const fullToken = generateCredential('adpat');
      return pool.transaction(async (trx) => {
        const token = await createPersonalAccessTokenQueries(trx).insertPersonalAccessToken({
          userId,
          environmentId,
          name: input.name,
          slug: slugify(input.name),
          prefix: displayPrefix(fullToken),
          tokenHash: hashSecret(fullToken),
          scopes,
          expiresAt: input.expiresAt ?? null,
        });
        await record(trx, caller, {
          action: 'personal_access_token.create',
          resource: { type: 'personal_access_token', id: token.id },
          scope: { environmentId },
          after: token,
          event: { type: 'personal_access_token.created', data: { token } },
        });
        return { token, fullToken };
      });
    },

    revoke: (caller: Caller, tokenId: string) => {
      const { userId, environmentId } = userOf(caller);
      return pool.transaction(async (trx) => {
        const before = await orNotFound(
          createPersonalAccessTokenQueries(trx).findPersonalAccessTokenOfUser(environmentId, tokenId, userId),
          'personal_access_token',
          tokenId,
        );
        const token = await createPersonalAccessTokenQueries(trx).revokePersonalAccessToken(environmentId, tokenId);
        if (!before.revokedAt) {
          await record(trx, caller, {
            action: 'personal_access_token.revoke',
            resource: { type: 'personal_access_token', id: tokenId },
            scope: { environmentId },
            before,
            after: token,
            event: { type: 'personal_access_token.revoked', data: { token } },
          });
        }
        return token;
      });
    },
  };
}

export type PersonalAccessTokenService = ReturnType<typeof createPersonalAccessTokenService>;
