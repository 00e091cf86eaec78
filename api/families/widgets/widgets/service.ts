// Widget tokens: a management caller with widgets:write issues a short-lived token for a directory user of the
// environment, one widget kind, scopes of that kind and the origins allowed to use it. The token is shown once;
// the row (never the token) records what it may do, and revoking it makes the widget API refuse it at once.
import { randomUUID } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createOrganizationTenantQueries } from '../../../../db/organizations/tenant-links/queries.ts';
import { createWidgetTokenQueries } from '../../../../db/widgets/tokens/queries.ts';
import type { WidgetToken } from '../../../../db/widgets/tokens/rows.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage } from '../../../common/schemas.ts';
import { conflict, invalidField, orNotFound } from '../../../errors.ts';
import { ORGANIZATION_KINDS, WIDGET_SCOPES } from './kinds.ts';
import { DEFAULT_LIFETIME_MINUTES, type IssueWidgetTokenBody, type WidgetTokensQuery } from './schemas.ts';
import { signWidgetToken } from './token.ts';

type Db = Parameters<typeof createWidgetTokenQueries>[0];

export function createWidgetTokenService(deps: { pool: DatabasePool; masterKey: Buffer; publicBaseUrl: string }) {
  const { pool } = deps;
  const find = (db: Db, caller: EnvironmentCaller, id: string, lock = false) =>
    orNotFound(createWidgetTokenQueries(db, caller.scope.environmentId).find(id, lock), 'widget_token', id);

  /** The organization an organization kind acts on: one of the tenant's organizations that the caller belongs to. */
  const organizationOf = async (db: Db, caller: EnvironmentCaller, input: IssueWidgetTokenBody) => {
    const needs = ORGANIZATION_KINDS.includes(input.kind);
    if (!needs) {
      if (input.organizationId !== undefined) throw invalidField('body.organizationId', `is only for the kinds ${ORGANIZATION_KINDS.join(', ')}`);
      return null;
    }
    if (input.organizationId === undefined) throw invalidField('body.organizationId', `is required for the kind ${input.kind}`);
    const linked = await createOrganizationTenantQueries(db).organizationIdsOfTenant(caller.scope.tenant.id);
    if (!linked.includes(input.organizationId) || !caller.principal.organizationIds.includes(input.organizationId)) {
      throw invalidField('body.organizationId', "is not an organization of this environment's tenant that the caller belongs to");
    }
    return input.organizationId;
  };

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: WidgetTokensQuery) =>
      listPage('widgetTokens', query, (page) => createWidgetTokenQueries(pool, caller.scope.environmentId).findPage(query, page)),

    issue: (caller: EnvironmentCaller, input: IssueWidgetTokenBody) =>
      pool.transaction(async (trx) => {
        const { environmentId, tenant } = caller.scope;
        const allowed: readonly string[] = WIDGET_SCOPES[input.kind];
        for (const [i, scope] of (input.scopes ?? []).entries()) {
          if (!allowed.includes(scope)) throw invalidField(`body.scopes.${i}`, `is not a scope of ${input.kind} (${allowed.join(', ')})`);
        }
        const organizationId = await organizationOf(trx, caller, input);
        const user = await createDirectoryUserQueries(trx, environmentId).findUser(input.userId, 'key share');
        if (!user) throw invalidField('body.userId', 'is not a user of this environment');
        if (!user.active) throw conflict('widget_token.user_inactive', 'The user is inactive: no widget may act as them.');
        const lifetimeSeconds = (input.lifetimeMinutes ?? DEFAULT_LIFETIME_MINUTES) * 60;
        const widgetToken = await createWidgetTokenQueries(trx, environmentId).insert({
          id: randomUUID(),
          tenantId: tenant.id,
          organizationId,
          userId: user.id,
          kind: input.kind,
          scopes: [...new Set(input.scopes ?? allowed)],
          origins: [...new Set(input.origins)],
          issuedBy: caller.actor,
          lifetimeSeconds,
        });
        const token = await signWidgetToken(
          { db: trx, masterKey: deps.masterKey, publicBaseUrl: deps.publicBaseUrl },
          {
            ...widgetToken,
            tokenId: widgetToken.id,
            tenantId: tenant.id,
            issuedAt: Date.parse(widgetToken.createdAt),
            expiresAt: Date.parse(widgetToken.expiresAt),
          },
        );
        await record(trx, caller, {
          action: 'widget.token.issue',
          resource: { type: 'widget_token', id: widgetToken.id },
          after: widgetToken,
          event: { type: 'widget.token.issued', data: { token: widgetToken } },
        });
        return { widgetToken, token, tokenType: 'Bearer' as const, expiresIn: lifetimeSeconds };
      }),

    /** Idempotent: revoking a revoked token answers it as it is. */
    revoke: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx): Promise<WidgetToken> => {
        const before = await find(trx, caller, id, true);
        if (before.revokedAt) return before;
        const widgetToken = await createWidgetTokenQueries(trx, caller.scope.environmentId).revoke(id);
        await record(trx, caller, {
          action: 'widget.token.revoke',
          resource: { type: 'widget_token', id },
          before: { revokedAt: null },
          after: { revokedAt: widgetToken.revokedAt },
          event: { type: 'widget.token.revoked', data: { token: widgetToken } },
        });
        return widgetToken;
      }),
  };
}

export type WidgetTokenService = ReturnType<typeof createWidgetTokenService>;
