// Every request made with an impersonation token, accepted or refused, is audited before it is answered: the
// operator as actor, on behalf of the impersonated user, in the tenant and environment of the grant.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { DatabasePool } from 'slonik';
import { recordChange } from '../../db/shared/changes.ts';

export function registerImpersonationAudit(app: FastifyInstance, pool: DatabasePool) {
  // A callback hook: every response passes here, and only impersonated ones do any work.
  app.addHook('onSend', (request, reply, payload, done) => {
    const principal = request.principal;
    const impersonation = principal?.impersonation;
    if (!principal || !impersonation) return done(null, payload);
    const use = { method: request.method, path: request.routeOptions.url ?? request.url.split('?')[0] ?? '/', statusCode: reply.statusCode };
    pool
      .transaction((trx) =>
        recordChange(trx, {
          actor: impersonation.actor,
          onBehalfOf: { type: 'user', id: principal.id },
          origin: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id },
          action: 'impersonation.token.use',
          resource: { type: 'impersonation_grant', id: impersonation.grantId },
          scope: { tenantId: impersonation.tenantId, environmentId: impersonation.environmentId },
          after: use,
          event: {
            type: 'impersonation.token.used',
            data: { grantId: impersonation.grantId, userId: principal.id, operator: impersonation.actor, ...use },
          },
        }),
      )
      .then(
        () => done(null, payload),
        (error: Error) => done(error),
      );
  });
}

export const impersonationAuditPlugin = fp<{ pool: DatabasePool }>(async (app, { pool }) => registerImpersonationAudit(app, pool), {
  name: 'impersonation-audit',
  fastify: '5.x',
  dependencies: ['auth'],
  decorators: { request: ['principal'] },
});
