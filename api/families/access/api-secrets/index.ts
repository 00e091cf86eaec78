import { defineFamily } from '../../family.ts';
import { apiSecretRoutes } from './routes.ts';
import { createApiSecretService } from './service.ts';

export default defineFamily({
  name: 'access/api-secrets',
  register: (app, { pool, config }) => apiSecretRoutes(app, createApiSecretService({ pool, rotationGraceMs: config.apiSecretRotationGraceMs })),
});
