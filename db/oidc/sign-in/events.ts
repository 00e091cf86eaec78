// Events of the sign-in pages of the environments' OpenID providers, assembled into db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { SSO_FAILURE_REASONS } from '../../sso/events.ts';
import { EMAIL_CODE_FAILURE_REASONS } from '../../email-codes/events.ts';
import { SignInSettings } from './settings.ts';

const Settings = SignInSettings.loose();

export const SIGN_IN_EVENTS = {
  'user.signed_in': {
    description:
      'A directory user signed in on the sign-in page of the environment’s OpenID provider, for a client (`amr`: the methods used, `pwd` for a password, `fed` for SSO through a connection, named by `connectionId`; `otp` and `email` for an emailed code or magic link; `hwk` and `user` for a user-verified passkey, named by `passkeyId`; `otp` and `mfa` added after a second factor, named by `secondFactor`: `totp` or `recovery_code`, `email_code` (which adds `otp`, `email` and `mfa`), `sms_code` (a code texted to the user’s phone, which adds `sms` and `mfa`), or `remember_device` when a remembered device spared it, which adds nothing to `amr`; `null`: none asked). Recorded when the sign-in finishes, after any second factor.',
    data: z.looseObject({
      userId: uuid,
      clientId: z.string(),
      amr: z.array(z.string()),
      ip: z.string().nullable(),
      remember: z.boolean(),
      secondFactor: z.enum(['totp', 'recovery_code', 'email_code', 'sms_code', 'remember_device']).nullable().optional(),
    }),
  },
  'user.sign_in_failed': {
    description:
      'A sign-in on the sign-in page failed. `reason`: `unknown_user` (no user has that userName or email), `wrong_password` (or no password set), `inactive` (the user is deactivated), `email_unverified` (a sign-up whose email code was not entered yet), `sso_required` (a password for an email whose domain must sign in through an SSO connection; the page says so), `password_disabled` (a password posted while the environment’s password policy turns password sign-in off; the page says so). The page shows the same message for every reason. An SSO sign-in (through a connection: `connectionId`) is refused with `state_unknown`, `state_consumed`, `expired`, `tampered`, `replayed`, `wrong_audience`, `invalid_response`, `upstream_error`, `upstream_cancelled` (the user cancelled at the identity provider: the client gets `access_denied`), `email_conflict`, `provisioning_refused`, `idp_initiated_refused` or `inactive`. An emailed code or magic link is refused with `wrong_code`, `code_expired`, `code_used` or `code_attempts_exhausted` (or `unknown_user`, `inactive` when the identifier named no user that can receive one). A code emailed as the second factor is refused with `wrong_code`, `code_expired` or `code_used`, and the event has `secondFactor: email_code`. A code texted as the second factor (or to enrol a phone, `stage: enrolment`) is refused with the same reasons, `secondFactor: sms_code` and `login` the number’s hint (`…` and its last 4 digits).',
    data: z.looseObject({
      userId: uuid.nullable(),
      login: z.string(),
      clientId: z.string(),
      reason: z.enum([
        'unknown_user',
        'wrong_password',
        'inactive',
        'email_unverified',
        'sso_required',
        'password_disabled',
        ...SSO_FAILURE_REASONS,
        ...EMAIL_CODE_FAILURE_REASONS,
      ]),
      ip: z.string().nullable(),
      secondFactor: z.enum(['email_code', 'sms_code']).optional(),
      stage: z.enum(['enrolment', 'verification']).optional(),
    }),
  },
  'user.consented': {
    description: 'A directory user allowed a client the scopes it asked for (a connected app); `grantId` is the provider grant its tokens are issued under.',
    data: z.looseObject({ userId: uuid, clientId: z.string(), scopes: z.array(z.string()), grantId: z.string() }),
  },
  'user.signed_up': {
    description:
      'A person created their own directory user on the sign-in page (the environment allows sign-up) and verified their email with the code sent to it; they are signed in.',
    data: z.looseObject({ userId: uuid, email: z.string(), clientId: z.string() }),
  },
  'user.email_verified': {
    description: 'A directory user proved they receive mail at `email` (the code sent to it was entered); the `email_verified` claim is true from now on.',
    data: z.looseObject({ userId: uuid, email: z.string(), via: z.enum(['sign_up']) }),
  },
  'sign_in_settings.updated': {
    description:
      "An environment's sign-in page settings (branding, sign-up, default locale) were replaced: `settings` is what is stored now, `previous` what was.",
    data: z.looseObject({ environmentId: uuid, settings: Settings, previous: Settings }),
  },
} as const satisfies Record<string, EventTypeEntry>;
