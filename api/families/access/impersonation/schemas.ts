import { z } from 'zod';
import { GRANT_STATUSES, ImpersonationGrant, ImpersonationSettings } from '../../../../db/access/impersonation/rows.ts';
import { pageOf, PageQuery } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { EnvironmentScopeParams, ImpersonationGrant, ImpersonationSettings };

/** The longest grant any environment allows: 1440 minutes. */
const MAX_DURATION_MINUTES = 1440;

export const IssueGrantBody = z
  .strictObject({
    userId: z.uuid().describe('A directory user of the environment, active'),
    reason: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters').describe('Why the operator acts as the user'),
    durationSeconds: z
      .number()
      .int()
      .min(1, 'must be at least 1')
      .max(MAX_DURATION_MINUTES * 60, `must be at most ${MAX_DURATION_MINUTES * 60}`)
      .optional()
      .describe("How long the grant lasts; the environment's maxDurationMinutes when absent, and never more"),
  })
  .meta({ id: 'IssueImpersonationGrantRequest' });

export const RevokeGrantBody = z
  .strictObject({ reason: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters').optional() })
  .meta({ id: 'RevokeImpersonationGrantRequest' });

export const SaveSettingsBody = z
  .strictObject({
    maxDurationMinutes: z.number().int().min(1, 'must be at least 1').max(MAX_DURATION_MINUTES, `must be at most ${MAX_DURATION_MINUTES}`),
    notifyUser: z.boolean(),
  })
  .meta({ id: 'SaveImpersonationSettingsRequest' });

export const GrantsQuery = PageQuery.extend({
  status: z.enum(GRANT_STATUSES).optional(),
  userId: z.uuid().optional().describe('Grants to act as this user'),
  actorId: z.uuid().optional().describe('Grants issued to this operator'),
});
export type GrantsQuery = z.infer<typeof GrantsQuery>;

export const GrantParams = EnvironmentScopeParams.extend({ grantId: z.uuid() });

export const GrantResponse = z.object({ grant: ImpersonationGrant }).meta({ id: 'ImpersonationGrantResponse' });
export const IssuedGrantResponse = z
  .object({
    grant: ImpersonationGrant,
    token: z.string().describe('The impersonation token (a JWT), shown only in this response'),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int().describe('Seconds until the token expires'),
  })
  .meta({ id: 'IssuedImpersonationGrantResponse' });
export const GrantsList = pageOf('grants', ImpersonationGrant).meta({ id: 'ImpersonationGrantsList' });
export const SettingsResponse = z.object({ settings: ImpersonationSettings }).meta({ id: 'ImpersonationSettingsResponse' });
