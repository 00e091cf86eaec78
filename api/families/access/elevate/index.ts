import { defineFamily } from '../../family.ts';
import { createGrantService } from './grants-service.ts';
import { grantRoutes } from './grants-routes.ts';
import { createPolicyService } from './policies-service.ts';
import { policyRoutes } from './policies-routes.ts';
import { createRequestService } from './requests-service.ts';
import { requestRoutes } from './requests-routes.ts';
import { slackInteractivityRoutes } from './slack-routes.ts';
import { createSlackApprovalService } from './slack-service.ts';

export default defineFamily({
  name: 'access/elevate',
  register: async (app, { pool, masterKey, config }) => {
    policyRoutes(app, createPolicyService(pool));
    requestRoutes(app, createRequestService(pool));
    grantRoutes(app, createGrantService(pool));
    const service = createSlackApprovalService({ pool, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets, timeoutMs: config.webhooks.timeoutMs });
    await slackInteractivityRoutes(app, { pool, masterKey, service });
  },
});
