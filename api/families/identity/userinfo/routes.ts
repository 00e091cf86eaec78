import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { createUserQueries } from '../../../../db/identity/users/queries.ts';
import { User } from '../../../../db/identity/users/rows.ts';
import { ApiError, notFound } from '../../../errors.ts';
import { principalOf } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import type { App } from '../../../types.ts';

const UserInfoResponse = z
  .object({
    meta: z.object({ code: z.number(), message: z.string() }),
    session: z.object({ remainingSeconds: z.number().nullable() }),
    user: User,
    act: z
      .object({ sub: z.string(), actor_type: z.string(), grant_id: z.string() })
      .optional()
      .describe('With an impersonation token: the operator acting as the user (RFC 8693 `act`) and its grant'),
  })
  .meta({ id: 'UserInfoResponse' });

export function userinfoRoutes(app: App, pool: DatabasePool) {
  app.get('/v1/userinfo', {
    // The one management route that accepts an impersonation token: it answers as the impersonated user.
    config: { impersonation: true },
    // Any valid user token may read its own user: the scope is the weakest one a PAT always may carry.
    schema: {
      tags: ['User info'],
      operationId: 'getUserInfo',
      summary: 'The user the token belongs to',
      description:
        "Returns the directory user the personal access token belongs to, with the remaining lifetime of the token. A token that is not a user's (service account, organization key) gets 403 `auth.user_required`. " +
        'An impersonation token answers as the impersonated user, with `act` naming the operator (the request is audited on behalf of the user).',
      security: [{ bearerAuth: [] }],
      response: { 200: UserInfoResponse, ...errorResponses() },
    },
    handler: async (request) => {
      const principal = principalOf(request);
      if (principal.type !== 'user') throw new ApiError(403, 'auth.user_required', 'userinfo describes a user; this token belongs to a service account.');
      const user = principal.environmentId && (await createUserQueries(pool).findUserById(principal.environmentId, principal.id));
      if (!user) throw notFound('user', principal.id);
      const remainingSeconds = principal.expiresAt === null ? null : Math.max(0, Math.floor((principal.expiresAt - Date.now()) / 1000));
      const { impersonation } = principal;
      const act = impersonation && { sub: impersonation.actor.id, actor_type: impersonation.actor.type, grant_id: impersonation.grantId };
      return { meta: { code: 200, message: 'OK' }, session: { remainingSeconds }, user, ...(act ? { act } : {}) };
    },
  });
}
