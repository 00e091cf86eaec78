// The access-requests page of each environment (`{issuer}/access`): people signed in through the environment's hosted
// sign-in request just-in-time access, follow their requests live, activate and end their grants, and approvers
// decide and see who holds what. Every action goes through the elevate family's services.
import formbody from '@fastify/formbody';
import { defineFamily } from '../../family.ts';
import { issuerOf } from '../../../oidc/providers.ts';
import { sendElevateNotice } from '../../../messages/elevate-notice.ts';
import { createGrantService } from '../elevate/grants-service.ts';
import { createRequestService } from '../elevate/requests-service.ts';
import { createPageCookies } from './cookies.ts';
import { createPages } from './pages.ts';
import { accessPageRoutes } from './routes.ts';
import { createPageService } from './service.ts';
import { createPageSignIn } from './sign-in.ts';

const SESSION_SECONDS = 3600;

export default defineFamily({
  name: 'access/access-page',
  register: async (app, { pool, masterKey, config, oidc, sender }) => {
    await app.register(formbody);
    const base = new URL(config.publicBaseUrl);
    const basePath = base.pathname.replace(/\/$/, '');
    const paths = {
      basePath,
      issuer: (environmentId: string) => issuerOf(config.publicBaseUrl, environmentId),
      page: (environmentId: string, below = '') => `${issuerOf(config.publicBaseUrl, environmentId)}/access${below}`,
    };
    const cookies = createPageCookies(masterKey, {
      secure: base.protocol === 'https:',
      sessionSeconds: SESSION_SECONDS,
      pathOf: (environmentId) => `${basePath}/v1/oidc/${environmentId}/access`,
    });
    const requests = createRequestService(pool, (environmentId, request, policy) =>
      sendElevateNotice({ pool, sender, log: app.log }, environmentId, request, policy),
    );
    const service = createPageService(pool, { requests, grants: createGrantService(pool) });
    const pages = createPages({ pool, oidc, cookies, service, signIn: createPageSignIn(app, paths), paths });
    accessPageRoutes(app, { pool, cookies, service, pages });
  },
});
