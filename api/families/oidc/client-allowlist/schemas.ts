import { z } from 'zod';
import { ClientAllowlistEntry } from '../../../../db/oidc/client-allowlist/rows.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { EnvironmentScopeParams };

const clientId = z.string().min(1, 'must not be empty').max(200);

export const ReplaceClientAllowlistBody = z
  .strictObject({
    clientIds: z
      .array(clientId)
      .max(100, 'must hold at most 100 clients')
      .describe('The clients (client_id) that may sign users in; empty: every client of the environment'),
  })
  .meta({ id: 'ReplaceClientAllowlistRequest' });

export const AddClientAllowlistEntryBody = z.strictObject({ clientId }).meta({ id: 'AddClientAllowlistEntryRequest' });

export const AllowlistEntryParams = EnvironmentScopeParams.extend({ clientId });

export const EnvironmentClientAllowlistResponse = z
  .object({ entries: z.array(ClientAllowlistEntry).describe('Oldest first; empty: every client of the environment may sign users in') })
  .meta({ id: 'EnvironmentClientAllowlistResponse' });
