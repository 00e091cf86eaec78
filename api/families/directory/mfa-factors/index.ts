import { defineFamily } from '../../family.ts';
import { mfaFactorRoutes } from './routes.ts';
import { createMfaFactorService } from './service.ts';

export default defineFamily({
  name: 'directory/mfa-factors',
  register: (app, { pool }) => mfaFactorRoutes(app, createMfaFactorService(pool)),
});
