// Shapes of connected apps: the consents users gave the environment's clients (SPEC OidcClientGrant).
import { z } from 'zod';
import { OidcClientGrant } from '../../../../db/oidc/connected-apps/rows.ts';
import { ManagementMeta, pageOf, PageQuery } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { EnvironmentScopeParams, OidcClientGrant };

const meta = ManagementMeta.optional();
const clientId = z.string().min(1).max(255);

export const UserParams = EnvironmentScopeParams.extend({ userId: z.uuid() });

export const ConnectedAppsQuery = PageQuery.extend({
  clientId: clientId.optional().describe("Only this client's grants"),
  userId: z.uuid().optional().describe("Only this user's grants"),
});
export type ConnectedAppsQuery = z.infer<typeof ConnectedAppsQuery>;

export const OidcClientGrantsResponse = pageOf('grants', OidcClientGrant).extend({ meta }).meta({ id: 'OidcClientGrantsResponse' });

export const RevokeConnectedAppBody = z
  .strictObject({ clientId: clientId.describe('The client_id of the app'), userId: z.uuid().describe('The directory user who consented') })
  .meta({ id: 'RevokeConnectedAppRequest' });
export type RevokeConnectedAppBody = z.infer<typeof RevokeConnectedAppBody>;

export const ConnectedAppSuccessResponse = z.object({ success: z.literal(true), meta }).meta({ id: 'ConnectedAppSuccessResponse' });
