// What every SMS vendor adapter shares: the outbound call through the SSRF-guarded client, and the vendor's refusal.
import { postOutbound } from '../outbound/http-client.ts';
import type { LookupFn } from '../outbound/ssrf-guard.ts';

/** How adapters reach vendors: private targets only when the deployment allows them (tests, local fakes). */
export interface SmsTransport {
  allowPrivate: boolean;
  timeoutMs: number;
  lookup?: LookupFn;
}

export interface SmsMessage {
  /** E.164, e.g. +14155552671. */
  to: string;
  text: string;
}

export interface SmsSender {
  /** Sends one SMS; resolves with the vendor's message id, or rejects with an SmsVendorError. */
  send(message: SmsMessage): Promise<{ messageId: string }>;
}

/** The vendor refused the message or could not be reached; `message` is the vendor's own error text (never secrets). */
export class SmsVendorError extends Error {
  readonly vendor: string;
  readonly statusCode: number | null;
  constructor(vendor: string, message: string, statusCode: number | null = null) {
    super(message);
    this.vendor = vendor;
    this.statusCode = statusCode;
  }
}

/** POSTs to the vendor and returns the status and body; a network failure is an SmsVendorError. */
export async function callVendor(vendor: string, url: string, body: string, headers: Record<string, string>, transport: SmsTransport) {
  const result = await postOutbound(url, body, headers, {
    allowPrivate: transport.allowPrivate,
    timeoutMs: transport.timeoutMs,
    lookup: transport.lookup,
    maxResponseBytes: 16_384,
  });
  if (result.statusCode === null) throw new SmsVendorError(vendor, `${vendor} could not be reached: ${result.error ?? 'network error'}`);
  return { ok: result.ok, status: result.statusCode, text: result.responseExcerpt ?? '' };
}

export const parseJson = (text: string): Record<string, unknown> | null => {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** A vendor's answer in one line for an error message: its own text, trimmed. */
export const excerpt = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300) || '(empty response)';

export const baseUrlOf = (configured: string | undefined, fallback: string) => (configured ?? fallback).replace(/\/+$/, '');
