import { defineFamily } from '../../family.ts';
import { entryRoutes } from './entries-routes.ts';
import { createEntryService } from './entries-service.ts';
import { keyRoutes } from './keys-routes.ts';
import { createKeyService } from './keys-service.ts';
import { resolveRoute } from './resolve-route.ts';
import { verifyRoutes } from './verify-routes.ts';
import { createVerifyService } from './verify-service.ts';

export default defineFamily({
  name: 'mcp/trust-store',
  register: (app, { pool, config, issuer, trustStores }) => {
    entryRoutes(app, createEntryService(pool));
    keyRoutes(app, createKeyService({ pool, rotationGraceMs: config.trustStore.keyRotationGraceMs }));
    verifyRoutes(app, createVerifyService({ pool, issuer, timeoutMs: config.trustStore.verifyTimeoutMs, allowPrivate: config.allowPrivateNetworkTargets }));
    resolveRoute(app, trustStores);
  },
});
