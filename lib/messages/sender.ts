// The sender port: how the service sends a person a message (a sign-up code, a password link). The default sender
// (./log-sender.ts) writes a log line and keeps the message in an in-process inbox; a messaging provider (email,
// SMS) implements the same interface and is passed to buildApp as `sender`.

export type MessageKind = 'sign_up_code' | 'sign_up_existing_account' | 'password_reset' | 'sign_in_code' | 'sms_code';

/** How a message reaches the person: an email (the default) or a text message to an E.164 phone number. */
export type MessageChannel = 'email' | 'sms';

export interface Message {
  /** `email` when absent. */
  channel?: MessageChannel | undefined;
  /** The recipient: an email address, or an E.164 phone number for `sms`. */
  to: string;
  /** An email's subject (unused for `sms`). */
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
