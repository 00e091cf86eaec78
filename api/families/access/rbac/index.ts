import { defineFamily } from '../../family.ts';
import { assignmentRoutes } from './assignments-routes.ts';
import { createAssignmentService } from './assignments-service.ts';
import { resourceTypeRoutes } from './resource-types-routes.ts';
import { createResourceTypeService } from './resource-types-service.ts';
import { resourceRoutes } from './resources-routes.ts';
import { createResourceService } from './resources-service.ts';
import { roleRoutes } from './roles-routes.ts';
import { createRoleService } from './roles-service.ts';

export default defineFamily({
  name: 'access/rbac',
  register: (app, { pool }) => {
    resourceTypeRoutes(app, createResourceTypeService(pool));
    resourceRoutes(app, createResourceService(pool));
    roleRoutes(app, createRoleService(pool));
    assignmentRoutes(app, createAssignmentService(pool));
  },
});
