// Rows of service accounts and personal access tokens; their public shapes are in each family's schemas.ts
// (api/families/identity/service-accounts/, personal-access-tokens/).
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../shared/rows.ts';

export const ServiceAccount = z.object({
  id: uuid,
  organizationId: uuid,
  clientId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  lastUsedAt: nullableTimestamp,
  scopes: z.array(z.string()),
  active: z.boolean(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
export type ServiceAccount = z.infer<typeof ServiceAccount>;

export const PersonalAccessToken = z.object({
  id: uuid,
  name: z.string(),
  environmentId: uuid.nullable(),
  userId: uuid.nullable(),
  slug: z.string().nullable(),
  prefix: z.string().nullable(),
  expiresAt: nullableTimestamp,
  lastUsedAt: nullableTimestamp,
  revokedAt: nullableTimestamp,
  createdAt: nullableTimestamp,
  updatedAt: nullableTimestamp,
  active: z.boolean(),
  scopes: z.array(z.string()),
});
export type PersonalAccessToken = z.infer<typeof PersonalAccessToken>;
