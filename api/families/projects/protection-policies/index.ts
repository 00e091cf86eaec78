import { defineFamily } from '../../family.ts';
import { protectionPolicyRoutes } from './routes.ts';
import { createProtectionPolicyService } from './service.ts';

export default defineFamily({
  name: 'projects/protection-policies',
  register: (app, { pool }) => protectionPolicyRoutes(app, createProtectionPolicyService(pool)),
});
