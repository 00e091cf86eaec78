import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { PasswordPolicyBody, PasswordPolicyParams, PasswordPolicyResponse } from './schemas.ts';
import type { PasswordPolicyService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environment settings'];
const path = '/v1/tenants/:tenantId/environments/:environmentId/settings/password-policy';

export function passwordPolicyRoutes(app: App, policies: PasswordPolicyService) {
  app.get(path, {
    schema: {
      tags,
      operationId: 'getPasswordPolicy',
      summary: 'Get the password policy of an environment',
      description:
        'The environment’s password policy; an environment that never saved one answers `policy: null` and `passwordAuthEnabled: true` (the default rules: 8 to 256 characters, not only whitespace).',
      security: requires('environment-settings:read'),
      params: PasswordPolicyParams,
      response: { 200: PasswordPolicyResponse, ...errorResponses(404) },
    },
    handler: (r) => policies.find(callerOf(r, 'environment')),
  });
  app.put(path, {
    schema: {
      tags,
      operationId: 'updatePasswordPolicy',
      summary: 'Replace the password policy of an environment',
      description:
        'Replaces the policy (a key left out takes its default: `minLength` 8, no class required, `passwordAuthEnabled` true). It applies to every password set from now on (sign-up, reset, change, the directory API); passwords already set are not checked again. Emits `password_policy.updated`.',
      security: requires('environment-settings:write'),
      params: PasswordPolicyParams,
      body: PasswordPolicyBody,
      response: { 200: PasswordPolicyResponse, ...errorResponses(404) },
    },
    handler: (r) => policies.replace(callerOf(r, 'environment'), r.body),
  });
}
