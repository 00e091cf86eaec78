// Admin Portal links: an organization's admin gets a URL carrying a token (adpl_…), shown once, stored as its hash,
// that opens once within its lifetime and starts a portal session (./sessions.ts). Revoking a link refuses it and
// ends its session.
import type { DatabasePool } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../../../../lib/crypto.ts';
import { createPortalLinkQueries } from '../../../../db/organizations/admin-portal/queries.ts';
import type { PortalLink } from '../../../../db/organizations/admin-portal/rows.ts';
import { invalidField, orNotFound } from '../../../errors.ts';
import { record, type CallerChange, type OrganizationCaller } from '../../../access/caller.ts';
import { checkEnvironmentInTenant, findReachableTenant } from '../../../access/reach.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { DEFAULT_OPEN_SECONDS, DEFAULT_SESSION_SECONDS, type CreatePortalLinkBody } from './schemas.ts';

export interface PortalLinkServiceDeps {
  pool: DatabasePool;
  publicBaseUrl: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const NEEDS_ENVIRONMENT = new Set(['sso', 'directory_sync']);

/** https, or http on a loopback host (development); never credentials or a fragment in it. */
function checkReturnUrl(value: string) {
  const url = new URL(value);
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) throw invalidField('body.returnUrl', 'must be an https URL (http only on a loopback host)');
  if (url.username || url.password) throw invalidField('body.returnUrl', 'must not carry credentials');
  if (url.hash) throw invalidField('body.returnUrl', 'must not have a fragment');
}

const audit = (verb: 'create' | 'revoke', portalLink: PortalLink, before: PortalLink | null): CallerChange => ({
  action: `portal_link.${verb}`,
  resource: { type: 'portal_link', id: portalLink.id },
  scope: { tenantId: portalLink.tenantId, environmentId: portalLink.environmentId },
  before,
  after: portalLink,
  event: verb === 'create' ? { type: 'portal_link.created', data: { portalLink } } : { type: 'portal_link.revoked', data: { portalLink } },
});

export function createPortalLinkService(deps: PortalLinkServiceDeps) {
  const { pool } = deps;
  const find = (db: Parameters<typeof createPortalLinkQueries>[0], caller: OrganizationCaller, id: string, lock = false) =>
    orNotFound(createPortalLinkQueries(db, caller.scope.organizationId).find(id, { lock }), 'portal_link', id);

  return {
    find: (caller: OrganizationCaller, id: string) => find(pool, caller, id),

    list: (caller: OrganizationCaller, query: PageQuery) =>
      listPage('portalLinks', query, (page) => createPortalLinkQueries(pool, caller.scope.organizationId).findPage(page)),

    create: async (caller: OrganizationCaller, input: CreatePortalLinkBody) => {
      const organizationId = caller.scope.organizationId;
      // A tenant outside the organization (or out of the caller's reach) is named like any wrong body field.
      const tenant = await findReachableTenant(pool, caller.principal, input.tenantId, { viaSeats: false });
      if (!tenant || !tenant.organizationIds.includes(organizationId)) throw invalidField('body.tenantId', 'is not a tenant of this organization');
      await checkEnvironmentInTenant(pool, tenant.id, input.environmentId);
      if (NEEDS_ENVIRONMENT.has(input.intent) && !input.environmentId) throw invalidField('body.environmentId', `is required for the ${input.intent} intent`);
      if (input.returnUrl) checkReturnUrl(input.returnUrl);
      const token = generateCredential('adpl');
      return pool.transaction(async (trx) => {
        const portalLink = await createPortalLinkQueries(trx, organizationId).insert({
          tenantId: tenant.id,
          environmentId: input.environmentId ?? null,
          intent: input.intent,
          returnUrl: input.returnUrl ?? null,
          prefix: displayPrefix(token),
          hint: token.slice(-4),
          hash: hashSecret(token),
          expiresInSeconds: input.expiresInSeconds ?? DEFAULT_OPEN_SECONDS,
          sessionLifetimeSeconds: input.sessionLifetimeSeconds ?? DEFAULT_SESSION_SECONDS,
        });
        await record(trx, caller, audit('create', portalLink, null));
        return { portalLink, url: `${deps.publicBaseUrl}/portal/open/${token}` };
      });
    },

    /** Idempotent: revoking a revoked link answers it as it is, without a new event. */
    revoke: (caller: OrganizationCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        if (before.revokedAt) return before;
        const portalLink = await createPortalLinkQueries(trx, caller.scope.organizationId).revoke(id);
        await record(trx, caller, audit('revoke', portalLink, before));
        return portalLink;
      }),
  };
}

export type PortalLinkService = ReturnType<typeof createPortalLinkService>;
