// The test inbox: messages the app's default sender (lib/messages/log-sender.ts) kept, read without sleeping.
import type { App } from '../../api/types.ts';
import type { InboxMessage } from '../../lib/messages/inbox.ts';
import type { MessageKind } from '../../lib/messages/sender.ts';

/** The first message (kept or arriving) to `to` (case-insensitively), of `kind` if given. */
export const waitForMessage = (app: App, to: string, kind?: MessageKind, timeoutMs?: number): Promise<InboxMessage> =>
  app.messages.inbox.waitFor((m) => m.to.toLowerCase() === to.toLowerCase() && (!kind || m.kind === kind), timeoutMs);

/** Every kept message to `to`. */
export const messagesTo = (app: App, to: string) => app.messages.inbox.messages.filter((m) => m.to.toLowerCase() === to.toLowerCase());
