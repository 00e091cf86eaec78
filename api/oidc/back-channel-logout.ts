// The back-channel logouts of an RP-initiated logout (`end_session`) as durable processes. oidc-provider sends them
// itself, inline in the logout request, through each client's `backchannelLogout(sub, sid)`: an RP that is down then
// is never told, and a crash mid-request loses the rest. Here that method starts the same `back-channel-logout`
// process a session revocation starts (api/families/directory/sessions/back-channel.ts): through the outbox, retried
// on BACK_CHANNEL_LOGOUT_SCHEDULE, its failure recorded. The provider goes on at once (the logout page does not wait
// on the RPs), and `backchannel.success` now means "handed to the process".
import Provider from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createDirectorySessionWriteQueries } from '../../db/oidc/provider/sessions.ts';
import { enqueueBackChannelLogouts, type BackChannelLogoutSettings } from '../families/directory/sessions/back-channel.ts';

type LoggingOutClient = { clientId: string; backchannelLogout(sub: string, sid: string | undefined): Promise<void> };

export function sendBackChannelLogoutsDurably(
  provider: Provider,
  deps: { pool: DatabasePool; scope: { tenantId: string; environmentId: string }; settings: BackChannelLogoutSettings },
) {
  const { pool, scope, settings } = deps;
  (provider.Client.prototype as unknown as LoggingOutClient).backchannelLogout = async function (this: LoggingOutClient, sub, sid) {
    // Called inside the end_session request: its session is the one ending. Its directory row names the process.
    const uid = (Provider.ctx?.oidc?.session as { uid?: string } | undefined)?.uid;
    const sessionId = (uid && (await createDirectorySessionWriteQueries(pool, scope.environmentId).idOf(uid))) || uid || sid || sub;
    await enqueueBackChannelLogouts(pool, settings, scope, [{ sessionId, clientId: this.clientId, accountId: sub, sid }]);
  };
}
