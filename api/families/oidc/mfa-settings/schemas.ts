import { z } from 'zod';
import { MFA_MODES } from '../../../../db/mfa/settings.ts';

export const MfaSettingsParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });

const RoleKey = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be 1–100 characters of A–Z, a–z, 0–9, _ . : -');

const mode = z
  .enum(MFA_MODES)
  .describe(
    '`off`: no second factor is offered or asked for. `optional`: users may enrol and are then asked at sign-in; holders of a role in `requiredRoleKeys` must. `required`: every user must (enrolling at sign-in when they have no factor).',
  );
const requiredRoleKeys = z
  .array(RoleKey)
  .max(100)
  .superRefine((keys, ctx) => {
    keys.forEach((key, i) => {
      if (keys.indexOf(key) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `${key} is listed twice` });
    });
  })
  .describe(
    'Keys of RBAC roles whose holders (directly, through a group, through an active elevate grant, or by inheritance) must use a second factor when `mode` is `optional`. Each must be a role of the environment.',
  );
// Held here until 0038; refused by name so that a client still sending it learns where it went.
const movedToSessionConfig = z
  .never({ error: 'has moved to the session config: set it with PUT or PATCH …/settings/session' })
  .optional()
  .describe('Moved to the session config (`rememberDeviceSeconds` of …/settings/session): refused here.');

const emailCodeSecondFactor = z
  .boolean()
  .describe(
    'Whether the second-factor pages offer "Email me a code instead" (a 6-digit code sent to the user’s verified email) beside the authenticator app, and instead of enrolling one. Never offered after an emailed code as the first factor.',
  );

const smsSecondFactor = z
  .boolean()
  .describe(
    'Whether the second-factor pages offer a code texted to the user’s verified phone number: "Text me a code" beside the authenticator app for a user with a phone, and "Use a text message" instead of enrolling an app. Needs an active SMS provider of the environment.',
  );

const smsRateLimit = z
  .strictObject({
    perEnvironmentPerHour: z.number().int().min(1).max(100000).default(300).describe('Codes the sign-in pages text in the last hour, in all.'),
    perNumberPerHour: z.number().int().min(1).max(100).default(5).describe('Codes the sign-in pages text to one number in the last hour.'),
  })
  .describe(
    'SMS pumping protection: the most codes texted in any hour (counted in Postgres, shared by every instance). A send above either is refused (429 page), evented as `sms.rate_limited` and opens or adds to a `sign_in.sms_pumping` threat.',
  );

export const MfaSettingsBody = z.strictObject({
  mode,
  requiredRoleKeys: requiredRoleKeys.default([]),
  rememberDeviceSeconds: movedToSessionConfig,
  emailCodeSecondFactor: emailCodeSecondFactor.default(false),
  smsSecondFactor: smsSecondFactor.default(false),
  smsRateLimit: smsRateLimit.default({ perEnvironmentPerHour: 300, perNumberPerHour: 5 }),
});
export type MfaSettingsBody = z.infer<typeof MfaSettingsBody>;

export const MfaSettingsResponse = z
  .object({
    settings: z
      .object({
        mode,
        requiredRoleKeys: z.array(z.string()),
        emailCodeSecondFactor,
        smsSecondFactor,
        smsRateLimit: z.object({ perEnvironmentPerHour: z.number().int(), perNumberPerHour: z.number().int() }).describe(smsRateLimit.description ?? ''),
        updatedAt: z.iso.datetime({ offset: true }).nullable().describe('When the policy was last saved; null while the environment has the default (`off`).'),
      })
      .meta({ id: 'MfaSettings' }),
  })
  .meta({ id: 'MfaSettingsResponse' });
