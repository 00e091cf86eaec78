// The widget API's credential: a widget token only (management tokens, PATs and keys are refused with 403), live
// (not revoked: its row is read on every request), used from one of its origins, on a route of its kind within its
// scopes (403 otherwise). The widget then acts as the token's user through the same services as the API.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabasePool } from 'slonik';
import { createTenantQueries } from '../../../../db/tenants/tenants/queries.ts';
import { createWidgetTokenQueries } from '../../../../db/widgets/tokens/queries.ts';
import type { WidgetKind } from '../../../../db/widgets/tokens/rows.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import { bearerOf } from '../../../account/access-token.ts';
import { ApiError } from '../../../errors.ts';
import { widgetGrants, type WidgetScope } from './kinds.ts';
import { allowOrigin, checkOrigin } from './cors.ts';
import { invalidWidgetToken, verifyWidgetToken, type WidgetClaims } from './token.ts';

export interface WidgetCaller extends EnvironmentCaller {
  widget: WidgetClaims;
}

const callers = new WeakMap<FastifyRequest, WidgetCaller>();

/** The caller of a widget API request that its guard admitted. */
export function widgetCallerOf(request: FastifyRequest): WidgetCaller {
  const caller = callers.get(request);
  if (!caller) throw new Error(`${request.method} ${request.url} has no widget guard`);
  return caller;
}

export type WidgetGuard = (kind: WidgetKind, scope: WidgetScope) => (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export function createWidgetGuard(deps: { pool: DatabasePool; publicBaseUrl: string }): WidgetGuard {
  const { pool } = deps;
  return (kind, scope) => async (request, reply) => {
    allowOrigin(request, reply);
    const header = request.headers.authorization;
    if (header && /^Bearer ad[a-z]+_/i.test(header)) {
      throw new ApiError(403, 'widgets.widget_token_required', 'The widget API accepts widget tokens only, not management credentials.');
    }
    const claims = await verifyWidgetToken({ db: pool, publicBaseUrl: deps.publicBaseUrl }, bearerOf(header));
    checkOrigin(request, reply, claims.origins);
    const row = await createWidgetTokenQueries(pool, claims.environmentId).find(claims.tokenId);
    if (!row || row.revokedAt) throw invalidWidgetToken('revoked');
    if (claims.kind !== kind) {
      throw new ApiError(403, 'widgets.wrong_kind', `This operation belongs to the ${kind} widget; the token is for the ${claims.kind} widget.`);
    }
    if (!widgetGrants(claims.scopes, scope)) {
      throw new ApiError(403, 'widgets.insufficient_scope', `This operation needs the widget scope ${scope}, which the token does not carry.`, {
        headers: { 'www-authenticate': `Bearer realm="widgets", error="insufficient_scope", scope="${scope}"` },
      });
    }
    // unscoped: the tenant named by a verified token of that tenant's environment.
    const tenant = await createTenantQueries(pool).findTenantById(claims.tenantId);
    if (!tenant) throw invalidWidgetToken('its tenant no longer exists');
    callers.set(request, {
      widget: claims,
      principal: {
        type: 'user',
        id: claims.userId,
        credentialId: claims.tokenId,
        organizationIds: claims.organizationId ? [claims.organizationId] : [],
        // No management scope: a widget never mints a credential with more than none, nor changes a protected operator.
        scopes: [],
        environmentId: claims.environmentId,
        expiresAt: claims.expiresAt,
        tenantIds: [claims.tenantId],
        seats: [],
      },
      actor: { type: 'user', id: claims.userId },
      origin: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id },
      scope: { tenant, organizationId: claims.organizationId, environmentId: claims.environmentId },
    });
  };
}
