import { defineFamily } from '../../family.ts';
import { acmeChallengeRoutes } from './challenges.ts';
import { vanityDomainRoutes } from './routes.ts';
import { createVanityDomainService } from './service.ts';

export default defineFamily({
  name: 'projects/vanity-domains',
  register: (app, { pool, config }) => {
    vanityDomainRoutes(app, createVanityDomainService({ pool, cnameTarget: config.vanity.cnameTarget, timings: config.vanity.timings }));
    acmeChallengeRoutes(app, pool);
  },
});
