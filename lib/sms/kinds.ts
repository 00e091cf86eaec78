/** The SMS vendors the service speaks, as the `provider` of an environment's SMS provider. */
export const SMS_PROVIDER_KINDS = ['twilio', 'messagebird', 'sns', 'vonage'] as const;
export type SmsProviderKind = (typeof SMS_PROVIDER_KINDS)[number];
