// Back-channel logout (OpenID Connect Back-Channel Logout 1.0) of the clients of revoked sessions, after the
// revocation committed. The provider signs and posts the logout token; an RP that fails or is unreachable does not
// undo the revocation: it is logged.
import type { FastifyBaseLogger } from 'fastify';
import type Provider from 'oidc-provider';
import type { OidcProviders } from '../../../oidc/types.ts';

/** One client to log out of one session: the session's subject and its sid for that client. */
export interface LogoutNotice {
  clientId: string;
  accountId: string;
  sid: string | undefined;
}

type LogoutClient = { backchannelLogoutUri?: string; backchannelLogout(sub: string, sid: string | undefined): Promise<void> };

async function logOut(provider: Provider, notice: LogoutNotice): Promise<void> {
  const client = (await provider.Client.find(notice.clientId)) as unknown as LogoutClient | undefined;
  if (client?.backchannelLogoutUri) await client.backchannelLogout(notice.accountId, notice.sid);
}

export async function backChannelLogout(oidc: OidcProviders, environmentId: string, notices: LogoutNotice[], log: FastifyBaseLogger) {
  if (notices.length === 0) return;
  try {
    const provider = await oidc.get(environmentId);
    const outcomes = await Promise.allSettled(notices.map((notice) => logOut(provider, notice)));
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'rejected') log.warn({ err: outcome.reason, environmentId, clientId: notices[i]!.clientId }, 'back-channel logout failed');
    });
  } catch (err) {
    log.warn({ err, environmentId }, 'back-channel logout skipped: the provider could not be built');
  }
}
