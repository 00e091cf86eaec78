import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { BruteForceLockoutResponse, BruteForceLockoutsResponse, LockoutListParams, LockoutListQuery, LockoutParams } from './schemas.ts';
import type { BruteForceLockoutService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environment settings'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/settings/brute-force-policy/lockouts';

export function bruteForceLockoutRoutes(app: App, lockouts: BruteForceLockoutService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listBruteForceLockouts',
      summary: 'List the current brute-force lockouts',
      description:
        'The identifiers and IP addresses the brute-force policy locks out now (`maxFailures` failed passwords within `lockoutMinutes`), the longest lockout first; `userId` narrows to the identifiers naming one user.',
      security: requires('environment-settings:read'),
      params: LockoutListParams,
      querystring: LockoutListQuery,
      response: { 200: BruteForceLockoutsResponse, ...errorResponses(404) },
    },
    handler: (r) => lockouts.list(callerOf(r, 'environment'), r.query),
  });
  app.delete(`${base}/:lockoutId`, {
    schema: {
      tags,
      operationId: 'unlockBruteForceLockout',
      summary: 'End a brute-force lockout',
      description:
        'Unlocks the identifier or IP address now: its failure count starts again. Answers the lockout ended; 404 `brute_force_lockout.not_found` when it is not a current lockout (ended, or never). Emits `brute_force.unlocked`.',
      security: requires('environment-settings:write'),
      params: LockoutParams,
      response: { 200: BruteForceLockoutResponse, ...errorResponses(404) },
    },
    handler: (r) => lockouts.unlock(callerOf(r, 'environment'), r.params.lockoutId),
  });
}
