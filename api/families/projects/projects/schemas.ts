import { z } from 'zod';
import { PROJECT_TYPES, Project, ProjectEnvironment, TenantProject } from '../../../../db/projects/projects/rows.ts';
import { Tenant } from '../../../../db/tenants/tenants/rows.ts';
import { displayName, ManagementMeta, pageOf } from '../../../common/schemas.ts';

export { Project, ProjectEnvironment, TenantProject };

export const ProjectParams = z.strictObject({ tenantId: z.uuid(), projectId: z.uuid() });

export const webUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048, 'must be at most 2048 characters');

export const SaveProjectBody = z
  .strictObject({
    id: z.uuid().optional().describe('The project to update; a new project (with development and production environments) is created when absent'),
    name: displayName(200),
    description: z.string().max(2000, 'must be at most 2000 characters').nullable().optional(),
    url: webUrl.nullable().optional().describe("The application's URL, returned as `link`"),
    type: z.enum(PROJECT_TYPES).optional().describe('`web` (the default on create), `m2m` or `mcp`'),
  })
  .meta({ id: 'SaveApplicationRequest' });

export const SetDefaultEnvironmentBody = z
  .strictObject({ environmentId: z.uuid().describe('An environment of this project') })
  .meta({ id: 'SetDefaultEnvironmentRequest' });

export const TenantProjectsResponse = pageOf('projects', TenantProject).extend({ tenant: Tenant.nullable() }).meta({ id: 'TenantProjectsResponse' });

export const ProjectResponse = z.object({ project: Project.nullable(), meta: ManagementMeta.optional() }).meta({ id: 'ProjectResponse' });

export const SaveApplicationResponse = z
  .object({ project: Project.nullable(), environments: z.array(ProjectEnvironment), meta: ManagementMeta.optional() })
  .meta({ id: 'SaveApplicationResponse' });
