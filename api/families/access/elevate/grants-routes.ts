import { callerOf } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import type { App } from '../../../types.ts';
import type { GrantService } from './grants-service.ts';
import { ELEVATE_BASE, elevateRead, elevateWrite, tags } from './policies-routes.ts';
import { ActivateBody, EnvironmentParams, ExtendBody, ExtendResponse, GrantParams, GrantResponse, GrantsList, GrantsQuery, RevokeBody } from './schemas.ts';

const base = `${ELEVATE_BASE}/grants`;

export function grantRoutes(app: App, grants: GrantService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listElevateGrants',
      summary: 'List elevated-access grants',
      description: 'Lists the grants of the environment, oldest first, optionally by state, grantee or policy.',
      security: elevateRead,
      params: EnvironmentParams,
      querystring: GrantsQuery,
      response: { 200: GrantsList, ...errorResponses(404) },
    },
    handler: (r) => grants.list(callerOf(r, 'environment'), r.query),
  });
  app.get(`${base}/:grantId`, {
    schema: {
      tags,
      operationId: 'getElevateGrant',
      summary: 'Get an elevated-access grant',
      description: 'Returns one grant.',
      security: elevateRead,
      params: GrantParams,
      response: { 200: GrantResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ grant: await grants.find(callerOf(r, 'environment'), r.params.grantId) }),
  });
  app.post(`${base}/:grantId/activate`, {
    schema: {
      tags,
      operationId: 'activateElevateGrant',
      summary: 'Activate a grant',
      description:
        'Starts an approved grant now (or at `startAt`, before the activation deadline) for its duration: its role or membership counts in AuthZEN ' +
        'decisions from then until it expires. The grantee (or an operator). 409 `elevate.grant_not_approved` otherwise.',
      security: elevateWrite,
      params: GrantParams,
      body: ActivateBody,
      response: { 200: GrantResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ grant: await grants.activate(callerOf(r, 'environment'), r.params.grantId, r.body ?? {}) }),
  });
  app.post(`${base}/:grantId/extend`, {
    schema: {
      tags,
      operationId: 'extendElevateGrant',
      summary: 'Extend an active grant',
      description:
        "Adds `durationSeconds` to an active grant, within the policy's maximum counted from activation (400 `elevate.duration_exceeds_maximum`). " +
        'When the policy re-approves extensions, the grant is unchanged and a pending request for the extension is made instead (`reapprovalRequired`).',
      security: elevateWrite,
      params: GrantParams,
      body: ExtendBody,
      response: { 200: ExtendResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => grants.extend(callerOf(r, 'environment'), r.params.grantId, r.body),
  });
  app.post(`${base}/:grantId/revoke`, {
    schema: {
      tags,
      operationId: 'revokeElevateGrant',
      summary: 'Revoke a grant',
      description: 'Ends an approved or active grant at once (the grantee or an operator); decisions stop counting it on the next request.',
      security: elevateWrite,
      params: GrantParams,
      body: RevokeBody,
      response: { 200: GrantResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ grant: await grants.revoke(callerOf(r, 'environment'), r.params.grantId, r.body ?? {}) }),
  });
}
