// A directory user's sign-in sessions: list, revoke one, revoke all.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { DirectorySessionsResponse, RevokeDirectorySessionsResponse, SessionParams, UserParams } from './schemas.ts';
import type { DirectorySessionService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Directory'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/directory/users/:userId/sessions';
const read = requires('directory:read');
const write = requires('directory:write');
const REVOKES =
  "deletes the provider's session and the refresh and access tokens issued through it (refused on every instance at once), and starts the " +
  'back-channel logout of each client of the session that has a back-channel logout URI: a durable process, retried when the client fails, ' +
  'that the answer does not wait for (a client that gives up records `session.back_channel_logout_failed` and does not undo the revocation).';

export function directorySessionRoutes(app: App, sessions: DirectorySessionService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listDirectoryUserSessions',
      summary: "List a user's sign-in sessions",
      description: 'Lists the sessions of the user, newest first, revoked and expired ones included (`active` says which are not).',
      security: read,
      params: UserParams,
      response: { 200: DirectorySessionsResponse, ...errorResponses(404) },
    },
    handler: (r) => sessions.list(callerOf(r, 'environment'), r.params.userId),
  });
  app.delete(`${base}/:sessionId`, {
    schema: {
      tags,
      operationId: 'revokeDirectoryUserSession',
      summary: "Revoke one of a user's sessions",
      description: `Revokes the session: ${REVOKES} A session revoked before answers success with no sessions.`,
      security: write,
      params: SessionParams,
      response: { 200: RevokeDirectorySessionsResponse, ...errorResponses(404) },
    },
    handler: (r) => sessions.revokeOne(callerOf(r, 'environment'), r.params.userId, r.params.sessionId),
  });
  app.delete(base, {
    schema: {
      tags,
      operationId: 'revokeDirectoryUserSessions',
      summary: "Revoke all of a user's sessions",
      description: `Revokes every session of the user not yet revoked: each one ${REVOKES}`,
      security: write,
      params: UserParams,
      response: { 200: RevokeDirectorySessionsResponse, ...errorResponses(404) },
    },
    handler: (r) => sessions.revokeAll(callerOf(r, 'environment'), r.params.userId),
  });
}
