import { defineFamily } from '../../family.ts';
import { passwordPolicyRoutes } from './routes.ts';
import { createPasswordPolicyService } from './service.ts';

export default defineFamily({
  name: 'projects/password-policy',
  register: (app, { pool }) => passwordPolicyRoutes(app, createPasswordPolicyService(pool)),
});
