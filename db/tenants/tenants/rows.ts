import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const Tenant = z
  .object({
    id: uuid,
    name: z.string(),
    description: z.string().nullable(),
    company: z.string().nullable(),
    active: z.boolean(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    organizationIds: z.array(uuid).describe('Organizations that include the tenant'),
  })
  .meta({ id: 'Tenant' });
export type Tenant = z.infer<typeof Tenant>;
