// The SMS vendors by kind: each one's config and secret schemas and its sender. The later sending process asks
// `smsSenderOf(kind, config, secrets, transport).send({ to, text })` for each active provider in rank order.
import type { z } from 'zod';
import type { SmsProviderKind } from '../kinds.ts';
import type { SmsSender, SmsTransport } from '../vendor-call.ts';
import { messagebirdConfig, messagebirdSecrets, messagebirdSender } from './messagebird.ts';
import { snsConfig, snsSecrets, snsSender } from './sns.ts';
import { twilioConfig, twilioSecrets, twilioSender } from './twilio.ts';
import { vonageConfig, vonageSecrets, vonageSender } from './vonage.ts';

type Fields = Record<string, unknown>;
interface Vendor {
  config: z.ZodType<Fields>;
  secrets: z.ZodObject;
  sender(config: Fields, secrets: Fields, transport: SmsTransport): SmsSender;
}
const vendor = <C extends z.ZodType<Fields>, S extends z.ZodObject>(
  config: C,
  secrets: S,
  sender: (c: z.infer<C>, s: z.infer<S>, t: SmsTransport) => SmsSender,
): Vendor => ({ config, secrets, sender: sender as Vendor['sender'] });

export const SMS_VENDORS: Record<SmsProviderKind, Vendor> = {
  twilio: vendor(twilioConfig, twilioSecrets, twilioSender),
  messagebird: vendor(messagebirdConfig, messagebirdSecrets, messagebirdSender),
  sns: vendor(snsConfig, snsSecrets, snsSender),
  vonage: vendor(vonageConfig, vonageSecrets, vonageSender),
};

/** The sender of a provider from its stored config and unsealed secrets. */
export const smsSenderOf = (kind: SmsProviderKind, config: Fields, secrets: Fields, transport: SmsTransport) =>
  SMS_VENDORS[kind].sender(config, secrets, transport);
