import type { TemplateCatalog } from './catalog.ts';

export const en: TemplateCatalog = {
  verification: {
    subject: 'Your verification code',
    text: 'Your verification code is {code}. It expires in 10 minutes. If you did not ask for it, ignore this message.',
  },
  account_exists: {
    subject: 'Your verification code',
    text: 'Someone tried to create an account with this email address, but you already have one. Sign in instead, or reset your password. If it was not you, ignore this message.',
  },
  magic_link: {
    subject: 'Your sign-in code',
    text: 'Your sign-in code is {code}. Or open this link in the browser where you are signing in: {link}. Both work once, for 10 minutes. If you did not try to sign in, ignore this message.',
  },
  one_time_code: {
    subject: 'Your verification code',
    text: 'Your verification code is {code}. Enter it on the sign-in page to finish signing in: it works once, for 10 minutes. If you are not signing in right now, someone may know your password: change it.',
  },
  password_reset: {
    subject: 'Reset your password',
    text: 'Open this link to choose a new password: {link}. It can be used once. If you did not ask for it, ignore this message.',
  },
  invitation: {
    subject: 'You are invited to join {organization}',
    text: 'You are invited to join {organization}. Sign in and accept the invitation with the code {code} before {expiresAt}. If you did not expect this invitation, ignore this message.',
  },
  elevate_notice: {
    subject: 'Access request from {requester}',
    text: '{requester} asks for {access}: “{reason}”. Approve or deny the request before {expiresAt}.',
  },
  sms_code: {
    subject: '',
    text: '{code} is your verification code. It works once, for 10 minutes. Never share it.',
  },
};
