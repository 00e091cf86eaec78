// A directory user's sign-in sessions. Revoking one (or all) deletes the provider's Session record and the codes,
// access and refresh tokens of the grants it holds, marks it revoked, records `session.revoked` and starts the
// back-channel logout of each client of the session with a logout URI (./back-channel.ts), in one transaction.
import type { DatabasePool } from 'slonik';
import { createDirectorySessionQueries, type LockedSession } from '../../../../db/directory/sessions/queries.ts';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createOidcSettingsQueries } from '../../../../db/oidc/settings/queries.ts';
import { effectiveSessionConfig } from '../../../../lib/oidc/session-config.ts';
import { notFound, orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { enqueueBackChannelLogouts, type BackChannelLogoutSettings, type LogoutNotice } from './back-channel.ts';

type Queries = ReturnType<typeof createDirectorySessionQueries>;

/** Ends the provider's side of a session and returns whom to log out over the back channel. */
async function endProviderSession(queries: Queries, session: LockedSession): Promise<LogoutNotice[]> {
  const payload = await queries.providerSession(session.sessionUid);
  const authorizations = Object.entries(payload?.authorizations ?? {});
  const grantIds = authorizations.flatMap(([, a]) => (a.grantId ? [a.grantId] : []));
  await queries.deleteProviderRecords(session.sessionUid, grantIds);
  const accountId = payload?.accountId;
  return accountId ? authorizations.map(([clientId, a]) => ({ sessionId: session.id, clientId, accountId, sid: a.sid })) : [];
}

/**
 * Revokes the user's sessions not yet revoked, in `db`'s transaction: one (`sessionId`), or all but the session whose
 * provider uid is `exceptUid`, and starts (through the outbox, so after the commit) the back-channel logout of their
 * clients. Returns the revoked sessions: the caller records `session.revoked` for each.
 */
export async function revokeSessions(
  db: Parameters<typeof createDirectorySessionQueries>[0],
  scope: { tenantId: string; environmentId: string },
  logout: BackChannelLogoutSettings,
  userId: string,
  which: { sessionId?: string; exceptUid?: string } = {},
) {
  const queries = createDirectorySessionQueries(db, scope.environmentId);
  const locked = (await queries.lockUnrevoked(userId, which.sessionId)).filter((s) => s.sessionUid !== which.exceptUid);
  const notices: LogoutNotice[] = [];
  for (const session of locked) notices.push(...(await endProviderSession(queries, session)));
  const revoked = locked.length === 0 ? [] : await queries.markRevoked(locked.map((s) => s.id));
  await enqueueBackChannelLogouts(db, logout, scope, notices);
  return revoked;
}

export function createDirectorySessionService(pool: DatabasePool, logout: BackChannelLogoutSettings) {
  const userOf = (caller: EnvironmentCaller, userId: string) =>
    orNotFound(createDirectoryUserQueries(pool, caller.scope.environmentId).findUser(userId), 'user', userId);

  const revoke = async (caller: EnvironmentCaller, userId: string, sessionId?: string) => {
    await userOf(caller, userId);
    const { environmentId } = caller.scope;
    const sessions = await pool.transaction(async (trx) => {
      const revoked = await revokeSessions(trx, { tenantId: caller.scope.tenant.id, environmentId }, logout, userId, { sessionId });
      if (sessionId !== undefined && revoked.length === 0 && !(await createDirectorySessionQueries(trx, environmentId).exists(userId, sessionId))) {
        throw notFound('session', sessionId);
      }
      for (const session of revoked) {
        await record(trx, caller, {
          action: 'session.revoke',
          resource: { type: 'session', id: session.id },
          before: { revokedAt: null },
          after: { revokedAt: session.revokedAt },
          event: { type: 'session.revoked', data: { session } },
        });
      }
      return revoked;
    });
    return { success: true as const, sessions };
  };

  return {
    list: async (caller: EnvironmentCaller, userId: string) => {
      await userOf(caller, userId);
      const { environmentId } = caller.scope;
      const { idleLifetimeSeconds } = effectiveSessionConfig(await createOidcSettingsQueries(pool, environmentId).sessionConfig());
      return { sessions: await createDirectorySessionQueries(pool, environmentId).listOfUser(userId, idleLifetimeSeconds) };
    },
    revokeOne: (caller: EnvironmentCaller, userId: string, sessionId: string) => revoke(caller, userId, sessionId),
    revokeAll: (caller: EnvironmentCaller, userId: string) => revoke(caller, userId),
  };
}

export type DirectorySessionService = ReturnType<typeof createDirectorySessionService>;
