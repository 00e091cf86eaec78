// The sender port: how the service sends a person a message (a sign-up code, a password link). The default sender
// (./log-sender.ts) writes a log line and keeps the message in an in-process inbox; a messaging provider (email,
// SMS) implements the same interface and is passed to buildApp as `sender`.

export type MessageKind = 'sign_up_code' | 'sign_up_existing_account' | 'password_reset' | 'sign_in_code';

export interface Message {
  /** The recipient's address (an email address today). */
  to: string;
  subject: string;
  text: string;
  html?: string | undefined;
  /** The environment the message is sent for (its provider settings, later). */
  environmentId: string;
  kind: MessageKind;
}

export interface MessageSender {
  /** Sends the message; rejects when it could not be handed over. */
  send(message: Message): Promise<void>;
}
