// The in-process inbox of the default sender: the last `max` messages, oldest dropped first, and waiters that are
// woken when a message arrives (so tests wait for a message without sleeping).
import type { Message } from './sender.ts';

export interface InboxMessage extends Message {
  sentAt: Date;
}

export interface Inbox {
  /** The messages kept, oldest first. */
  readonly messages: readonly InboxMessage[];
  add(message: Message): void;
  /** The first kept or arriving message that `matches`; rejects after `timeoutMs`. */
  waitFor(matches: (message: InboxMessage) => boolean, timeoutMs?: number): Promise<InboxMessage>;
}

export function createInbox(max = 1000): Inbox {
  const messages: InboxMessage[] = [];
  const waiters = new Set<(message: InboxMessage) => boolean>();
  return {
    messages,
    add(message) {
      const kept = { ...message, sentAt: new Date() };
      messages.push(kept);
      if (messages.length > max) messages.splice(0, messages.length - max);
      for (const waiter of waiters) if (waiter(kept)) waiters.delete(waiter);
    },
    waitFor(matches, timeoutMs = 10_000) {
      const found = messages.find(matches);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = (message: InboxMessage) => {
          if (!matches(message)) return false;
          clearTimeout(timer);
          resolve(message);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no message in the inbox matched within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}
