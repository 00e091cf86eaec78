// An environment's sign-in page settings: branding (name, logo, colours), sign-up and the default locale.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { EnvironmentScopeParams, SignInSettingsBody, SignInSettingsResponse } from './schemas.ts';
import type { SignInSettingsService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environment settings'];
const path = '/v1/tenants/:tenantId/environments/:environmentId/settings/sign-in';

export function signInSettingsRoutes(app: App, settings: SignInSettingsService) {
  app.get(path, {
    schema: {
      tags,
      operationId: 'getSignInSettings',
      summary: 'Get the sign-in page settings of an environment',
      description: 'Returns the branding, sign-up and default locale of the environment’s hosted sign-in pages (the defaults until saved).',
      security: requires('environment-settings:read'),
      params: EnvironmentScopeParams,
      response: { 200: SignInSettingsResponse, ...errorResponses(404) },
    },
    handler: (r) => settings.find(callerOf(r, 'environment')),
  });
  app.put(path, {
    schema: {
      tags,
      operationId: 'replaceSignInSettings',
      summary: 'Replace the sign-in page settings of an environment',
      description:
        'Replaces the settings: a field left out takes its default. 400 naming the field for a logo that is not an https URL, a colour ' +
        'that is not #rrggbb, an unknown locale. Every instance shows the change on its pages from the next request on.',
      security: requires('environment-settings:write'),
      params: EnvironmentScopeParams,
      body: SignInSettingsBody,
      response: { 200: SignInSettingsResponse, ...errorResponses(404) },
    },
    handler: (r) => settings.replace(callerOf(r, 'environment'), r.body),
  });
}
