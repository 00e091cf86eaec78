// The service's message sender (built in api/app.ts): renders the template in the locale asked for (else the
// environment's default) with the environment's branding, then
// - when the environment has a provider of the message's channel in use (an active email provider; an active SMS
//   provider), records the message (status `queued`, its rendered content sealed) and starts its `message-send`
//   process through the outbox, in one transaction with its audit entry and `message.queued`: the caller's request
//   commits and answers without waiting for the vendor;
// - otherwise hands it to the log sender (lib/messages/log-sender.ts), as before providers existed.
// Email providers are tried the active one first, then the environment's other saved email providers (by kind) as its
// failover; SMS providers are the active ones by rank.
import type { DatabasePool } from 'slonik';
import { encrypt } from '../../lib/crypto.ts';
import type { MessageSender, RenderedMessageSender } from '../../lib/messages/sender.ts';
import { channelOf, KIND_OF } from '../../lib/messages/templates/params.ts';
import { renderMessage, templateLocale } from '../../lib/messages/templates/render.ts';
import { createMessageQueries } from '../../db/messages/queries.ts';
import { createProcessOutboxQueries } from '../../db/processes/outbox.ts';
import { recordChange } from '../../db/shared/changes.ts';

export interface MessageSenderDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  /** Where a message goes when its environment has no provider of the channel in use. */
  fallback: RenderedMessageSender;
  /** Delays before each attempt at one provider (MESSAGE_RETRY_SCHEDULE). */
  retryScheduleMs: number[];
}

export function createMessageSender(deps: MessageSenderDeps): MessageSender {
  const { pool } = deps;
  return {
    send: async (request) => {
      const { environmentId, to } = request;
      const channel = channelOf(request.template);
      const kind = KIND_OF[request.template];
      const context = await createMessageQueries(pool, environmentId).sendingContext();
      const rendered = renderMessage(request, templateLocale(request.locale, context?.defaultLocale), context ?? {});
      const providers = !context ? [] : channel === 'sms' ? context.smsProviders : context.emailActive ? context.emailProviders : [];
      if (!context || providers.length === 0) {
        return deps.fallback.send({ channel, to, subject: rendered.subject, text: rendered.text, html: rendered.html, environmentId, kind });
      }
      const { subject, text, html } = rendered;
      await pool.transaction(async (trx) => {
        const message = await createMessageQueries(trx, environmentId).insert({
          channel,
          kind,
          template: request.template,
          recipient: to,
          locale: rendered.locale,
          providers,
          retryScheduleMs: deps.retryScheduleMs,
          sealedContent: encrypt(deps.masterKey, JSON.stringify({ subject, text, html })),
        });
        await createProcessOutboxQueries(trx).enqueueStart({
          kind: 'message-send',
          entityId: message.id,
          tenantId: context.tenantId,
          input: { messageId: message.id, providers, scheduleMs: deps.retryScheduleMs },
        });
        await recordChange(trx, {
          actor: { type: 'system', id: 'message-sender' },
          action: 'message.queue',
          resource: { type: 'message', id: message.id },
          scope: { tenantId: context.tenantId, environmentId },
          after: { channel, kind, recipient: to, providers },
          event: { type: 'message.queued', data: { message } },
        });
      });
    },
  };
}
