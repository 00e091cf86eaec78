import { z } from 'zod';

export const PasswordUserParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid(), userId: z.uuid() });

/** A password: the environment's password policy (api/passwords/policy.ts) checks it in the service. */
export const Password = z
  .string()
  .describe('As the password policy allows: by default 8 to 256 characters (Unicode code points), not only whitespace. Never returned, never logged.');

export const SetPasswordBody = z.strictObject({ password: Password });
export type SetPasswordBody = z.infer<typeof SetPasswordBody>;

export const DEFAULT_LINK_SECONDS = 24 * 3600;
export const MAX_LINK_SECONDS = 7 * 24 * 3600;

export const CreatePasswordLinkBody = z
  .strictObject({
    expiresInSeconds: z
      .number()
      .int()
      .min(60)
      .max(MAX_LINK_SECONDS)
      .optional()
      .describe(`How long the link may be used, in seconds: 60 to ${MAX_LINK_SECONDS} (7 days); default ${DEFAULT_LINK_SECONDS} (24 hours).`),
  })
  .optional();
export type CreatePasswordLinkBody = z.infer<typeof CreatePasswordLinkBody>;

export const PasswordLinkResponse = z
  .object({
    url: z.url().describe('The one-time link, shown only in this answer: the user opens it to set a password.'),
    expiresAt: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'PasswordLink' });
