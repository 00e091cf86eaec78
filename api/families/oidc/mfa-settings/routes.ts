import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { MfaSettingsBody, MfaSettingsParams, MfaSettingsResponse } from './schemas.ts';
import type { MfaSettingsService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environment settings'];
const path = '/v1/tenants/:tenantId/environments/:environmentId/settings/mfa';

export function mfaSettingRoutes(app: App, settings: MfaSettingsService) {
  app.get(path, {
    schema: {
      tags,
      operationId: 'getMfaSettings',
      summary: 'Get the MFA policy of an environment',
      description:
        'The environment’s MFA policy; an environment that never saved one answers the default: mode `off`, no roles, no emailed code. How long a device is remembered is in the session config (`rememberDeviceSeconds` of …/settings/session).',
      security: requires('environment-settings:read'),
      params: MfaSettingsParams,
      response: { 200: MfaSettingsResponse, ...errorResponses(404) },
    },
    handler: (r) => settings.find(callerOf(r, 'environment')),
  });
  app.put(path, {
    schema: {
      tags,
      operationId: 'updateMfaSettings',
      summary: 'Replace the MFA policy of an environment',
      description:
        'Replaces the policy (a key left out takes its default: no roles, no emailed code). 400 naming `body.requiredRoleKeys.<i>` for a key that is not a role of the environment or is listed twice, and `body.rememberDeviceSeconds`, which moved to the session config (…/settings/session). The sign-in pages apply it from the next sign-in. Emits `mfa_settings.updated`.',
      security: requires('environment-settings:write'),
      params: MfaSettingsParams,
      body: MfaSettingsBody,
      response: { 200: MfaSettingsResponse, ...errorResponses(404) },
    },
    handler: (r) => settings.replace(callerOf(r, 'environment'), r.body),
  });
}
