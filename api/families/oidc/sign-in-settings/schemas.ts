// Shapes of an environment's sign-in page settings (tag Environment settings).
import { z } from 'zod';
import { ManagementMeta } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { EnvironmentScopeParams };

const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb')
  .transform((c) => c.toLowerCase());

const httpsUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' && url.href === value && !/[\s;,'"]/.test(value);
    } catch {
      return false;
    }
  }, 'must be an absolute https URL (as URL parsing writes it, without spaces, quotes, commas or semicolons)');

export const SignInSettingsBody = z
  .strictObject({
    displayName: z.string().trim().min(1).max(100).nullable().optional().describe('The name shown at the top of every sign-in page (default: none)'),
    logoUrl: httpsUrl.nullable().optional().describe('A logo shown at the top of every page: https only, allowed by its exact URL in the pages’ CSP'),
    primaryColor: color.nullable().optional().describe('The colour of the main buttons (#rrggbb); their text is white or dark, whichever passes WCAG AA'),
    backgroundColor: color.nullable().optional().describe('The page background (#rrggbb)'),
    signUpEnabled: z.boolean().optional().describe('Whether people may create their own account from the sign-in page (default false)'),
    defaultLocale: z
      .enum(['en', 'de', 'fr'])
      .nullable()
      .optional()
      .describe('The locale when neither ui_locales nor Accept-Language names a supported one (default en)'),
    emailCodeEnabled: z
      .boolean()
      .optional()
      .describe('Whether the sign-in page offers “Email me a code”: a one-time code and magic link sent to the user’s email (default false)'),
  })
  .meta({ id: 'SignInSettingsRequest' });
export type SignInSettingsBody = z.infer<typeof SignInSettingsBody>;

export const SignInSettingsView = z
  .object({
    displayName: z.string().nullable(),
    logoUrl: z.string().nullable(),
    primaryColor: z.string().nullable(),
    backgroundColor: z.string().nullable(),
    signUpEnabled: z.boolean(),
    defaultLocale: z.enum(['en', 'de', 'fr']).nullable(),
    emailCodeEnabled: z.boolean(),
    updatedAt: z.string().nullable().describe('When the settings were last saved; null while they are the defaults'),
  })
  .meta({ id: 'SignInSettings' });

export const SignInSettingsResponse = z.object({ settings: SignInSettingsView, meta: ManagementMeta.optional() }).meta({ id: 'SignInSettingsResponse' });
