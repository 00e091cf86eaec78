import { z } from 'zod';
import { ManagementMeta } from '../../../common/schemas.ts';
import { DEFAULT_PASSWORD_POLICY as D } from '../../../../db/password-policy/queries.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../../lib/passwords.ts';

export const PasswordPolicyParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });

const minLength = z
  .number()
  .int()
  .min(PASSWORD_MIN_LENGTH)
  .max(PASSWORD_MAX_LENGTH)
  .describe('The fewest Unicode code points a password may have: 8 (NIST SP 800-63B’s floor) to 256 (the service’s ceiling).');
const classes = {
  requireLowercase: z.boolean().describe('A lowercase letter (Unicode `Ll`) is required.'),
  requireUppercase: z.boolean().describe('An uppercase letter (Unicode `Lu`) is required.'),
  requireNumber: z.boolean().describe('A decimal digit (Unicode `Nd`) is required.'),
  requireSymbol: z.boolean().describe('A symbol is required: a character that is neither a letter, a number nor whitespace.'),
};
const passwordAuthEnabled = z
  .boolean()
  .describe(
    'Whether users may sign in with a password. Off: the sign-in pages neither offer nor accept one, and no password can be set (409 `password.disabled`).',
  );

export const PasswordPolicyBody = z.strictObject({
  minLength: minLength.default(D.minLength),
  requireLowercase: classes.requireLowercase.default(false),
  requireUppercase: classes.requireUppercase.default(false),
  requireNumber: classes.requireNumber.default(false),
  requireSymbol: classes.requireSymbol.default(false),
  passwordAuthEnabled: passwordAuthEnabled.default(true),
});
export type PasswordPolicyBody = z.infer<typeof PasswordPolicyBody>;

const timestamp = z.iso.datetime({ offset: true });
const PasswordPolicy = z
  .object({ id: z.uuid(), minLength, ...classes, createdAt: timestamp, updatedAt: timestamp })
  .nullable()
  .meta({ id: 'PasswordPolicy' });

export const PasswordPolicyResponse = z
  .object({
    passwordAuthEnabled,
    policy: PasswordPolicy.describe('The saved policy; null while the environment has the default (8 characters, no class required).'),
    meta: ManagementMeta.optional(),
  })
  .meta({ id: 'PasswordPolicyResponse' });
