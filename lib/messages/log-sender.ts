// The default sender until a messaging provider is configured: one info log line per message (who, what kind, for
// which environment; never its text, which holds a code or a link) with the text at debug only, and the message
// kept in the in-process inbox (./inbox.ts), where the tests read it.
import type { Inbox } from './inbox.ts';
import type { RenderedMessageSender } from './sender.ts';

export interface SenderLog {
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

export function createLogSender(deps: { log: SenderLog; inbox: Inbox }): RenderedMessageSender {
  return {
    send: async (message) => {
      const { to, kind, environmentId, subject } = message;
      deps.log.info({ to, kind, environmentId, subject }, 'message sent (log sender: no messaging provider configured)');
      deps.log.debug({ to, kind, environmentId, text: message.text }, 'message text');
      deps.inbox.add(message);
    },
  };
}
