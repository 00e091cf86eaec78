// What every email vendor adapter offers: one message sent, answered with the vendor's message id.
import type { LookupFn } from '../../outbound/ssrf-guard.ts';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface EmailSender {
  /** Sends one message; throws EmailSendError when the vendor refuses it or cannot be reached. */
  send(message: EmailMessage): Promise<{ messageId: string }>;
}

/** How adapters reach the network: through the SSRF guard (lib/outbound). */
export interface OutboundPolicy {
  timeoutMs: number;
  allowPrivate: boolean;
  lookup?: LookupFn;
}

/** The vendor refused the message or could not be reached; `message` is the vendor's own text, never a secret. */
export class EmailSendError extends Error {
  readonly statusCode: number | null;
  constructor(message: string, statusCode: number | null = null) {
    super(message);
    this.name = 'EmailSendError';
    this.statusCode = statusCode;
  }
}
