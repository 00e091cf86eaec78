import { z } from 'zod';
import { Environment } from '../../../../db/projects/projects/rows.ts';
import { displayName, ManagementMeta } from '../../../common/schemas.ts';

export { Environment };

export const EnvironmentParams = z.strictObject({ tenantId: z.uuid(), projectId: z.uuid(), environmentId: z.uuid() });

const fields = {
  name: displayName(100),
  description: z.string().max(2000, 'must be at most 2000 characters').nullable().optional(),
  weight: z.int('must be an integer').min(-1_000_000).max(1_000_000).nullable().optional().describe('Display order: lower first'),
  isLive: z.boolean().optional().describe('Serves real users (production); false by default'),
};

export const CreateEnvironmentBody = z.strictObject(fields).meta({ id: 'CreateEnvironmentRequest' });
export const UpdateEnvironmentBody = z.strictObject(fields).meta({ id: 'UpdateEnvironmentRequest' });

const ref = { id: z.uuid(), name: z.string().nullable() };

export const ApplicationEnvironmentsResponse = z
  .object({ project: z.object({ ...ref, type: z.string().nullable() }), environments: z.array(Environment), meta: ManagementMeta.optional() })
  .meta({ id: 'ApplicationEnvironmentsResponse' });

export const EnvironmentMutationResponse = z
  .object({ tenant: z.object(ref), project: z.object(ref), environment: Environment.nullable(), meta: ManagementMeta.optional() })
  .meta({ id: 'EnvironmentMutationResponse' });
