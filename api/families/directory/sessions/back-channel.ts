// Back-channel logout (OpenID Connect Back-Channel Logout 1.0) of the clients of revoked sessions: one durable
// `back-channel-logout` process per session and client (workflows/back-channel-logout.ts), started through the
// outbox in the revoking transaction. The request does not wait on the RPs, and a crash after the commit loses none.
import type { CommonQueryMethods } from 'slonik';
import { createProviderClientQueries } from '../../../../db/oidc/provider/clients.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import { issuerOf } from '../../../oidc/issuer.ts';

/** Where logout tokens come from and how long they are retried (PUBLIC_BASE_URL, BACK_CHANNEL_LOGOUT_SCHEDULE). */
export interface BackChannelLogoutSettings {
  publicBaseUrl: string;
  scheduleMs: number[];
}

/** One client to log out of one revoked session: the session's subject and its sid for that client. */
export interface LogoutNotice {
  sessionId: string;
  clientId: string;
  accountId: string;
  sid: string | undefined;
}

/** Starts, after `db`'s transaction commits, the logout of each notice's client that has a back-channel logout URI. */
export async function enqueueBackChannelLogouts(
  db: CommonQueryMethods,
  settings: BackChannelLogoutSettings,
  scope: { tenantId: string; environmentId: string },
  notices: LogoutNotice[],
) {
  if (notices.length === 0) return;
  const outbox = createProcessOutboxQueries(db);
  const issuer = issuerOf(settings.publicBaseUrl, scope.environmentId);
  const listening = new Set(await createProviderClientQueries(db, scope.environmentId).withBackChannelLogout(notices.map((n) => n.clientId)));
  for (const notice of notices.filter((n) => listening.has(n.clientId))) {
    await outbox.enqueueStart({
      kind: 'back-channel-logout',
      entityId: `${notice.sessionId}:${notice.clientId}`,
      tenantId: scope.tenantId,
      input: {
        ...scope,
        sessionId: notice.sessionId,
        clientId: notice.clientId,
        sub: notice.accountId,
        sid: notice.sid ?? null,
        issuer,
        scheduleMs: settings.scheduleMs,
      },
    });
  }
}
