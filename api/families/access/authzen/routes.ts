// SKELETON (replaced by the AuthZEN session): the evaluation endpoint denies everything.
import { z } from 'zod';
import { errorResponses } from '../../../common/schemas.ts';
import { requiresEnvironmentSecret } from '../../../plugins/environment-secret.ts';
import type { FamilyDeps } from '../../family.ts';
import type { App } from '../../../types.ts';

export function authzenRoutes(app: App, deps: FamilyDeps) {
  void deps;
  app.post('/access/v1/evaluation', {
    config: { environmentSecret: 'authzen' },
    schema: {
      tags: ['AuthZEN'],
      operationId: 'evaluateAccess',
      summary: 'Access evaluation',
      description: 'Skeleton.',
      security: requiresEnvironmentSecret,
      body: z.looseObject({}),
      response: { 200: z.object({ decision: z.boolean() }), ...errorResponses() },
    },
    handler: async () => ({ decision: false }),
  });
}
