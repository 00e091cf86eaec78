import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { bodyOf, ProtectionPolicyParams, responseOf } from './schemas.ts';
import { POLICY_ROUTES } from './policies.ts';
import type { ProtectionPolicyService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environment settings'];

export function protectionPolicyRoutes(app: App, policies: ProtectionPolicyService) {
  for (const route of POLICY_ROUTES) {
    const path = `/v1/tenants/:tenantId/environments/:environmentId/settings/${route.segment}`;
    const response = { 200: responseOf(route), ...errorResponses(404) };
    app.get(path, {
      schema: {
        tags,
        operationId: `get${route.shape}`,
        summary: `Get the ${route.title} of an environment`,
        description: `The environment’s ${route.title}; \`${route.key}: null\` until one is saved (the policy is off).`,
        security: requires('environment-settings:read'),
        params: ProtectionPolicyParams,
        response,
      },
      handler: (r) => policies.find(callerOf(r, 'environment'), route),
    });
    app.put(path, {
      schema: {
        tags,
        operationId: `update${route.shape}`,
        summary: `Replace the ${route.title} of an environment`,
        description: `Replaces the ${route.title} (a key left out takes its default). The hosted sign-in applies it from the next request on every instance. Emits \`${route.event}\`.`,
        security: requires('environment-settings:write'),
        params: ProtectionPolicyParams,
        body: bodyOf(route),
        response,
      },
      handler: (r) => policies.replace(callerOf(r, 'environment'), route, r.body as Record<string, unknown>),
    });
  }
}
