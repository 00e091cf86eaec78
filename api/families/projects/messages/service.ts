// The messages of an environment (list, one by id), and bounces reported by a vendor's webhook.
import type { DatabasePool } from 'slonik';
import { decrypt, secretsEqual, hashSecret } from '../../../../lib/crypto.ts';
import { createEmailProviderQueries } from '../../../../db/email-providers/queries.ts';
import { createMessageQueries, type MessageFilter } from '../../../../db/messages/queries.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { ApiError, orNotFound } from '../../../errors.ts';

const unauthorized = () =>
  new ApiError(401, 'message_hook.unauthorized', 'Authenticate with Basic auth: user `postmark`, password the Postmark provider’s server token.', {
    headers: { 'www-authenticate': 'Basic realm="iam-hooks"' },
  });

/** The password of a `Basic` authorization header whose user is `user`, or null. */
export function basicPassword(header: string | undefined, user: string): string | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 && decoded.slice(0, colon) === user ? decoded.slice(colon + 1) : null;
}

export function createMessageService(deps: { pool: DatabasePool; masterKey: Buffer }) {
  const { pool } = deps;
  return {
    list: (caller: EnvironmentCaller, query: PageQuery & MessageFilter) =>
      listPage('messages', query, (page) => createMessageQueries(pool, caller.scope.environmentId).list(query, page)),

    get: async (caller: EnvironmentCaller, id: string) => ({
      message: await orNotFound(createMessageQueries(pool, caller.scope.environmentId).find(id), 'message', id),
    }),

    /**
     * Postmark's bounce webhook: authenticated by the environment's Postmark server token (401 otherwise, also for an
     * environment without a Postmark provider); a `Bounce` record marks the message Postmark knows by `MessageID` bounced.
     */
    postmarkBounce: async (
      environmentId: string,
      authorization: string | undefined,
      body: { RecordType: string; MessageID?: string | undefined; Type?: string | undefined; Description?: string | undefined },
    ) => {
      const given = basicPassword(authorization, 'postmark');
      if (given === null) throw unauthorized();
      const sealed = await createEmailProviderQueries(pool, environmentId).findSecretsEncrypted('postmark');
      const token = sealed ? (JSON.parse(decrypt(deps.masterKey, sealed)) as { serverToken?: string }).serverToken : undefined;
      if (!token || !secretsEqual(hashSecret(given), hashSecret(token))) throw unauthorized();
      if (body.RecordType !== 'Bounce' || !body.MessageID) return { ok: true, bounced: false };
      const error = `${body.Type ?? 'Bounce'}: ${body.Description ?? 'no description'}`.slice(0, 500);
      return pool.transaction(async (trx) => {
        const message = await createMessageQueries(trx, environmentId).markBounced('postmark', body.MessageID!, error);
        if (!message) return { ok: true, bounced: false };
        const { tenantId } = (await createMessageQueries(trx, environmentId).sendingContext())!;
        await recordChange(trx, {
          actor: { type: 'system', id: 'postmark-webhook' },
          action: 'message.bounce',
          resource: { type: 'message', id: message.id },
          scope: { tenantId, environmentId },
          after: { status: message.status, lastError: message.lastError },
          event: { type: 'message.bounced', data: { message } },
        });
        return { ok: true, bounced: true };
      });
    },
  };
}

export type MessageService = ReturnType<typeof createMessageService>;
