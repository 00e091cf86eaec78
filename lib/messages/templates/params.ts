// The message templates and the values each takes. Issue 19's kinds: `verification` (the sign-up code; its variant
// `account_exists` when the email has an account), `magic_link` (the email sign-in code with its link),
// `one_time_code` (the emailed second factor: a code only), `password_reset`, `invitation`, `elevate_notice`, and
// `sms_code` (a text message).

export interface TemplateParams {
  verification: { code: string };
  account_exists: Record<string, never>;
  magic_link: { code: string; link: string };
  one_time_code: { code: string };
  password_reset: { link: string };
  /** An organization invitation: its organization's name, its join code and when it expires (ISO 8601). */
  invitation: { organization: string; code: string; expiresAt: string };
  /** An access request (elevate) awaiting a decision: who asks, for what, why, until when (ISO 8601). */
  elevate_notice: { requester: string; access: string; reason: string; expiresAt: string };
  sms_code: { code: string };
}

export type TemplateName = keyof TemplateParams;
export const TEMPLATE_NAMES = [
  'verification',
  'account_exists',
  'magic_link',
  'one_time_code',
  'password_reset',
  'invitation',
  'elevate_notice',
  'sms_code',
] as const satisfies readonly TemplateName[];

/** A template with its values: `{ template: 'magic_link', params: { code, link } }`. */
export type TemplateRequest = { [T in TemplateName]: { template: T; params: TemplateParams[T] } }[TemplateName];

/** What a message of each template is for, as recorded and listed (kinds the sign-in pages used before templates). */
export const KIND_OF = {
  verification: 'sign_up_code',
  account_exists: 'sign_up_existing_account',
  magic_link: 'sign_in_code',
  one_time_code: 'sign_in_code',
  password_reset: 'password_reset',
  invitation: 'invitation',
  elevate_notice: 'elevate_notice',
  sms_code: 'sms_code',
} as const satisfies Record<TemplateName, string>;

export const channelOf = (template: TemplateName): 'email' | 'sms' => (template === 'sms_code' ? 'sms' : 'email');
