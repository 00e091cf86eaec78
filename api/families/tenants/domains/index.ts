import { defineFamily } from '../../family.ts';
import { tenantDomainRoutes } from './routes.ts';
import { createTenantDomainService } from './service.ts';

export default defineFamily({
  name: 'tenants/domains',
  register: (app, { pool, config }) =>
    tenantDomainRoutes(
      app,
      createTenantDomainService({
        pool,
        dnsServers: config.dnsServers,
        verification: { intervalsMs: config.domains.verificationIntervalsMs, giveUpAfterMs: config.domains.verificationGiveUpMs },
      }),
    ),
});
