import { defineFamily } from '../../family.ts';
import { provisioningTokenRoutes } from './routes.ts';
import { createProvisioningTokenService } from './service.ts';

export default defineFamily({
  name: 'provisioning/provisioning-tokens',
  register: (app, { pool, config }) => provisioningTokenRoutes(app, createProvisioningTokenService({ pool, rotationGraceMs: config.apiSecretRotationGraceMs })),
});
