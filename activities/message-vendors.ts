// Sends a rendered message through one saved provider of an environment, and tells a transient failure (try the same
// provider again later) from a refusal (try the next one).
import type { CommonQueryMethods } from 'slonik';
import { decrypt } from '../lib/crypto.ts';
import { EMAIL_PROVIDER_KINDS, emailConfigSchemas, emailSecretSchemas, type EmailProviderKind } from '../lib/email/kinds.ts';
import { EmailSendError, senderOf, type OutboundPolicy } from '../lib/email/vendors/index.ts';
import { recipientRefusal } from '../lib/sms/phone.ts';
import { SmsVendorError } from '../lib/sms/vendor-call.ts';
import { smsSenderOf } from '../lib/sms/vendors/index.ts';
import { SMS_PROVIDER_KINDS, type SmsProviderKind } from '../lib/sms/kinds.ts';
import { createEmailProviderQueries } from '../db/email-providers/queries.ts';
import { createSmsProviderQueries } from '../db/sms-providers/queries.ts';

export interface SealedContent {
  subject: string;
  text: string;
  html: string;
}

export interface VendorDeps extends OutboundPolicy {
  masterKey: Buffer;
}

/** The vendor's refusal or failure: `transient` when a later attempt through the same provider may succeed. */
export class MessageVendorFailure extends Error {
  readonly transient: boolean;
  constructor(message: string, transient: boolean) {
    super(message);
    this.name = 'MessageVendorFailure';
    this.transient = transient;
  }
}

/** HTTP: no answer, a 5xx, 408 or 429 may pass; SMTP: a 4xx reply is temporary, a 5xx one permanent. */
const transientStatus = (status: number | null, smtp: boolean) =>
  status === null || (smtp ? status >= 400 && status < 500 : status >= 500 || status === 408 || status === 429);

async function sendEmail(db: CommonQueryMethods, deps: VendorDeps, environmentId: string, kind: EmailProviderKind, to: string, content: SealedContent) {
  const queries = createEmailProviderQueries(db, environmentId);
  const [provider, sealed] = await Promise.all([queries.find(kind), queries.findSecretsEncrypted(kind)]);
  if (!provider || !sealed) throw new MessageVendorFailure(`the ${kind} email provider is no longer saved`, false);
  const secrets: unknown = JSON.parse(decrypt(deps.masterKey, sealed));
  const sender = senderOf(kind, emailConfigSchemas[kind].parse(provider.config) as never, emailSecretSchemas[kind].parse(secrets) as never, deps);
  try {
    return await sender.send({ to, ...content });
  } catch (error) {
    if (error instanceof EmailSendError) throw new MessageVendorFailure(error.message, transientStatus(error.statusCode, kind === 'smtp'));
    throw error;
  }
}

async function sendSms(db: CommonQueryMethods, deps: VendorDeps, environmentId: string, kind: SmsProviderKind, to: string, content: SealedContent) {
  const provider = await createSmsProviderQueries(db, environmentId).find(kind);
  if (!provider?.active) throw new MessageVendorFailure(`the ${kind} SMS provider is no longer active`, false);
  const refusal = recipientRefusal(to, provider.config?.allowedCountries as string[] | undefined);
  if (refusal) throw new MessageVendorFailure(`the recipient ${refusal}`, false);
  const secrets = JSON.parse(decrypt(deps.masterKey, provider.secretsEncrypted)) as Record<string, unknown>;
  const transport = { allowPrivate: deps.allowPrivate, timeoutMs: deps.timeoutMs, lookup: deps.lookup };
  try {
    return await smsSenderOf(kind, provider.config ?? {}, secrets, transport).send({ to, text: content.text });
  } catch (error) {
    if (error instanceof SmsVendorError) throw new MessageVendorFailure(error.message, transientStatus(error.statusCode, false));
    throw error;
  }
}

/** Sends `content` to `to` through the environment's provider of kind `provider`; throws MessageVendorFailure. */
export function sendThrough(db: CommonQueryMethods, deps: VendorDeps, environmentId: string, provider: string, to: string, content: SealedContent) {
  if ((EMAIL_PROVIDER_KINDS as readonly string[]).includes(provider)) return sendEmail(db, deps, environmentId, provider as EmailProviderKind, to, content);
  if ((SMS_PROVIDER_KINDS as readonly string[]).includes(provider)) return sendSms(db, deps, environmentId, provider as SmsProviderKind, to, content);
  throw new MessageVendorFailure(`${provider} is not a provider kind`, false);
}
