import { defineFamily } from '../../family.ts';
import { bruteForceLockoutRoutes } from './routes.ts';
import { createBruteForceLockoutService } from './service.ts';

export default defineFamily({
  name: 'projects/brute-force-lockouts',
  register: (app, { pool }) => bruteForceLockoutRoutes(app, createBruteForceLockoutService(pool)),
});
