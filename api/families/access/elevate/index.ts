import { defineFamily } from '../../family.ts';
import { createGrantService } from './grants-service.ts';
import { grantRoutes } from './grants-routes.ts';
import { createPolicyService } from './policies-service.ts';
import { policyRoutes } from './policies-routes.ts';
import { createRequestService } from './requests-service.ts';
import { requestRoutes } from './requests-routes.ts';
import { slackInteractivityRoutes } from './slack-routes.ts';
import { sendElevateNotice } from '../../../messages/elevate-notice.ts';
import { createSlackApprovalService } from './slack-service.ts';

export default defineFamily({
  name: 'access/elevate',
  register: async (app, { pool, masterKey, config, sender }) => {
    policyRoutes(app, createPolicyService(pool));
    requestRoutes(
      app,
      createRequestService(pool, (environmentId, request, policy) => sendElevateNotice({ pool, sender, log: app.log }, environmentId, request, policy)),
    );
    grantRoutes(app, createGrantService(pool));
    const service = createSlackApprovalService({ pool, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets, timeoutMs: config.webhooks.timeoutMs });
    await slackInteractivityRoutes(app, { pool, masterKey, service });
  },
});
