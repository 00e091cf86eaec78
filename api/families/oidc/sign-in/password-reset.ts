// "Forgot your password?" on the sign-in pages: the identifier's user, when active with an email, gets a one-time
// password link (the directory's password links: the page `{issuer}/password/{token}` sets the password) through
// the sender. Whoever asks sees the same page, whether an account matched or not.
import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import type Provider from 'oidc-provider';
import { hashSecret } from '../../../../lib/crypto.ts';
import type { MessageSender } from '../../../../lib/messages/sender.ts';
import { createPasswordQueries } from '../../../../db/directory/passwords/queries.ts';
import { createSignInQueries } from '../../../../db/oidc/sign-in/queries.ts';
import { recordChange, type RequestOrigin } from '../../../../db/shared/changes.ts';
import { issuerOf, snapshotOf } from '../../../oidc/providers.ts';
import type { Messages } from '../../../oidc/pages/i18n/index.ts';
import { localeOf } from '../../../messages/locale.ts';

/** How long a reset link works. */
export const RESET_LINK_SECONDS = 3600;

export function createPasswordResetService(deps: {
  pool: DatabasePool;
  sender: MessageSender;
  publicBaseUrl: string;
  log: { error(fields: object, message: string): void };
}) {
  const { pool, sender } = deps;
  return {
    /** Sends the link when `identifier` names an active user with an email; resolves the same way either way. */
    request: async (provider: Provider, environmentId: string, identifier: string, t: Messages, origin: RequestOrigin) => {
      const user = await createSignInQueries(pool, environmentId).findByLogin(identifier);
      if (!user?.active || !user.email) return;
      const token = randomBytes(32).toString('base64url');
      await pool.transaction(async (trx) => {
        const link = await createPasswordQueries(trx, environmentId).insertLink(user.id, hashSecret(token), RESET_LINK_SECONDS);
        await recordChange(trx, {
          actor: { type: 'user', id: user.id },
          origin,
          action: 'user.password_link_created',
          resource: { type: 'user', id: user.id },
          scope: { tenantId: snapshotOf(provider).tenantId, environmentId },
          after: { linkId: link.id, expiresAt: link.expiresAt, via: 'reset' },
          event: { type: 'user.password_link_created', data: { userId: user.id, linkId: link.id, expiresAt: link.expiresAt, via: 'reset' } },
        });
      });
      const link = `${issuerOf(deps.publicBaseUrl, environmentId)}/password/${token}`;
      await sender
        .send({ to: user.email, template: 'password_reset', params: { link }, environmentId, locale: localeOf(t) })
        .catch((error: unknown) => deps.log.error({ err: error, kind: 'password_reset' }, 'message could not be sent'));
    },
  };
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
