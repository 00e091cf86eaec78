// The services the portal's pages act through: the same instances of the same families the management API uses, so
// the same rules, audit entries and events apply (with the portal session as the actor).
import type { FamilyDeps } from '../../family.ts';
import { createConnectionService } from '../../projects/environment-settings/connections.ts';
import { createProvisioningTokenService } from '../../provisioning/provisioning-tokens/service.ts';
import { createTenantDomainService } from '../../tenants/domains/service.ts';
import { createAuditLogService } from '../../events/audit-logs/service.ts';
import { createWebhookService } from '../../events/webhooks/service.ts';
import { createOidcClientService } from '../../oidc/clients/service.ts';

export function createPortalServices({ pool, masterKey, config }: Pick<FamilyDeps, 'pool' | 'masterKey' | 'config'>) {
  return {
    connections: createConnectionService({ pool, masterKey, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets }),
    provisioningTokens: createProvisioningTokenService({ pool, rotationGraceMs: config.apiSecretRotationGraceMs }),
    domains: createTenantDomainService({
      pool,
      dnsServers: config.dnsServers,
      verification: { intervalsMs: config.domains.verificationIntervalsMs, giveUpAfterMs: config.domains.verificationGiveUpMs },
    }),
    auditLogs: createAuditLogService(pool),
    webhooks: createWebhookService({
      pool,
      masterKey,
      allowPrivateNetworkTargets: config.allowPrivateNetworkTargets,
      secretOverlapMs: config.webhooks.secretOverlapMs,
      maxEndpointsPerTenant: config.webhooks.limits.endpointsPerTenant,
    }),
    oidcClients: createOidcClientService({ pool, masterKey }),
  };
}

export type PortalServices = ReturnType<typeof createPortalServices>;
