import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';
import { Attributes } from '../users/rows.ts';

export const Group = z
  .object({
    id: uuid,
    environmentId: uuid,
    name: z.string(),
    description: z.string().nullable(),
    externalId: z.string().nullable(),
    attributes: Attributes,
    memberCount: z.number().int(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'DirectoryGroup' });
export type Group = z.infer<typeof Group>;

export interface GroupFields {
  name?: string;
  description?: string | null;
  externalId?: string | null;
  attributes?: Record<string, unknown>;
}
