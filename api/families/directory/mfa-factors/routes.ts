import { z } from 'zod';
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { MfaFactorParams, MfaFactorsResponse, MfaUserParams } from './schemas.ts';
import type { MfaFactorService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Directory'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/directory/users/:userId/mfa-factors';

export function mfaFactorRoutes(app: App, factors: MfaFactorService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listDirectoryUserMfaFactors',
      summary: 'List a user’s second factors',
      description:
        'The user’s TOTP factor (an enrolment in progress shows `confirmed: false`) and phone factor (`type: phone`, its verified number), when each was created, confirmed and last used, and how many recovery codes are left. The secret and the codes are never shown.',
      security: requires('directory:read'),
      params: MfaUserParams,
      response: { 200: MfaFactorsResponse, ...errorResponses(404) },
    },
    handler: (r) => factors.list(callerOf(r, 'environment'), r.params.userId),
  });
  app.delete(`${base}/:factorId`, {
    schema: {
      tags,
      operationId: 'deleteDirectoryUserMfaFactor',
      summary: 'Remove a user’s second factor (reset)',
      description:
        'Removes the factor (TOTP or phone); removing a confirmed TOTP factor removes the user’s recovery codes too, so the user enrols again at the next sign-in the policy asks it of. 404 `mfa_factor.not_found`; 403 `directory.user_protected` when the user is an operator of the service and the caller does not hold every scope it holds. Emits `user.mfa_removed`.',
      security: requires('directory:write'),
      params: MfaFactorParams,
      response: { 204: z.null().describe('The factor is removed.'), ...errorResponses(403, 404) },
    },
    handler: async (r, reply) => {
      await factors.remove(callerOf(r, 'environment'), r.params.userId, r.params.factorId);
      return reply.status(204).send(null);
    },
  });
}
