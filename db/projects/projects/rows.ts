// Projects (applications) of a tenant, their environments and the sign-in connections of an environment,
// in the shapes of the public API (SPEC "Tenants and projects", "Environments").
import { z } from 'zod';
import { nullableTimestamp, uuid } from '../../shared/rows.ts';

export const PROJECT_TYPES = ['web', 'm2m', 'mcp'] as const;
export type ProjectType = (typeof PROJECT_TYPES)[number];

export const TenantProject = z
  .object({
    id: uuid,
    name: z.string().nullable(),
    type: z.enum(PROJECT_TYPES).nullable(),
    link: z.string().nullable().describe("The application's URL (`url` when saving)"),
    description: z.string().nullable(),
    logoUri: z.string().nullable(),
    createdAt: nullableTimestamp,
    updatedAt: nullableTimestamp,
    defaultEnvironmentId: uuid.nullable(),
  })
  .meta({ id: 'TenantProject' });
export type TenantProject = z.infer<typeof TenantProject>;

export const ProjectEnvironment = z
  .object({
    id: uuid,
    name: z.string().nullable(),
    description: z.string().nullable(),
    createdAt: nullableTimestamp,
    updatedAt: nullableTimestamp,
    weight: z.number().int().nullable().describe('Display order: lower first'),
    isLive: z.boolean().nullable().describe('Serves real users (production) rather than development or testing'),
  })
  .meta({ id: 'ProjectEnvironment' });
export type ProjectEnvironment = z.infer<typeof ProjectEnvironment>;

export const Project = TenantProject.extend({ environments: z.array(ProjectEnvironment).nullable() }).meta({ id: 'Project' });
export type Project = z.infer<typeof Project>;

export const Environment = ProjectEnvironment.extend({
  name: z.string(),
  isDefault: z.boolean().nullable().describe('The default environment of its project'),
  fgaStoreId: z.string().describe("The environment's FGA store id: `store_id` in the FGA API at /v1/fga (OpenFGA's), and `storeId` for OpenFGA's SDKs"),
}).meta({ id: 'Environment' });
export type Environment = z.infer<typeof Environment>;

/** An environment with what services need besides its public shape. */
export const EnvironmentRecord = Environment.omit({ fgaStoreId: true }).extend({
  tenantId: uuid,
  projectId: uuid,
  projectName: z.string(),
  projectType: z.enum(PROJECT_TYPES),
  clientId: z.string(),
  successRedirectUri: z.string().nullable(),
  errorRedirectUri: z.string().nullable(),
});
export type EnvironmentRecord = z.infer<typeof EnvironmentRecord>;

export const EnvironmentConnection = z
  .object({
    id: uuid,
    providerId: z.string().nullable(),
    name: z.string().nullable(),
    createdAt: nullableTimestamp,
    updatedAt: nullableTimestamp,
    active: z.boolean().nullable(),
    rank: z.number().int().nullable().describe('Order in which sign-in offers the connections: lower first'),
  })
  .meta({ id: 'EnvironmentConnection' });
export type EnvironmentConnection = z.infer<typeof EnvironmentConnection>;

/** A connection with its stored settings (never returned by the API as such). */
export const ConnectionRecord = EnvironmentConnection.extend({
  environmentId: uuid,
  config: z.record(z.string(), z.unknown()),
  secretsEncrypted: z.string().nullable(),
});
export type ConnectionRecord = z.infer<typeof ConnectionRecord>;
