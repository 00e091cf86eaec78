// The sender port: how the service sends a person a message (a sign-up code, a password link, an SMS code). A caller
// names the template and its values, the recipient, the environment and the locale of the page or the user; the
// sender renders it (./templates, with the environment's branding) and sends it: through the environment's providers
// by the durable `message-send` process when one of the channel is active (api/messages/sender.ts), else through the
// default log sender (./log-sender.ts), which keeps the rendered message in an in-process inbox.
import type { TemplateRequest } from './templates/params.ts';

export type { TemplateName, TemplateRequest } from './templates/params.ts';

/** What a message is for, as it is recorded and listed (the template is `template`). */
export type MessageKind = 'sign_up_code' | 'sign_up_existing_account' | 'password_reset' | 'sign_in_code' | 'sms_code' | 'invitation' | 'elevate_notice';

/** How a message reaches the person: an email (the default) or a text message to an E.164 phone number. */
export type MessageChannel = 'email' | 'sms';

/** A message to send: the template and its values, who gets it, for which environment, in which locale. */
export type MessageRequest = TemplateRequest & {
  /** The recipient: an email address, or an E.164 phone number for an `sms_code`. */
  to: string;
  environmentId: string;
  /** The locale of the page or the user (`en`, `de`, `fr`); absent or unknown: the environment's default, else `en`. */
  locale?: string | null | undefined;
};

/** A rendered message, as the log sender keeps it in the inbox. */
export interface Message {
  /** `email` when absent. */
  channel?: MessageChannel | undefined;
  /** The recipient: an email address, or an E.164 phone number for `sms`. */
  to: string;
  /** An email's subject (unused for `sms`). */
  subject: string;
  text: string;
  html?: string | undefined;
  /** The environment the message is sent for. */
  environmentId: string;
  kind: MessageKind;
}

/** A sender of rendered messages: the log sender, the fallback when no provider of the channel is active. */
export interface RenderedMessageSender {
  send(message: Message): Promise<void>;
}

export interface MessageSender {
  /**
   * Renders and sends (or queues) the message; resolves once it is handed over (a queued message is committed with
   * its process start, never waiting for the vendor), rejects when it could not be.
   */
  send(message: MessageRequest): Promise<void>;
}
