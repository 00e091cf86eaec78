import { defineFamily } from '../../family.ts';
import { createGrantService } from './grants-service.ts';
import { grantRoutes } from './grants-routes.ts';
import { createPolicyService } from './policies-service.ts';
import { policyRoutes } from './policies-routes.ts';
import { createRequestService } from './requests-service.ts';
import { requestRoutes } from './requests-routes.ts';

export default defineFamily({
  name: 'access/elevate',
  register: (app, { pool }) => {
    policyRoutes(app, createPolicyService(pool));
    requestRoutes(app, createRequestService(pool));
    grantRoutes(app, createGrantService(pool));
  },
});
