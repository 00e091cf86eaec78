import { callerOf } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import { CreateRoleBody, EnvironmentParams, RoleParams, RoleResponse, RolesList, UpdateRoleBody } from './schemas.ts';
import { RBAC_BASE, rbacRead, rbacWrite } from './resource-types-routes.ts';
import type { RoleService } from './roles-service.ts';
import type { App } from '../../../types.ts';

const tags = ['RBAC'];
const base = `${RBAC_BASE}/roles`;
const refusals =
  '400 naming `body.permissions.<i>.permission` for a permission the environment does not have and `body.inherits.<i>` for an unknown role; ' +
  '400 `rbac.role_cycle` when inheritance would form a cycle (the message shows it, e.g. `a → b → a`); ' +
  '400 `rbac.invalid_condition` naming `body.permissions.<i>.condition` with `<line>:<column>: <message>` for a condition that does not compile.';

export function roleRoutes(app: App, roles: RoleService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listRbacRoles',
      summary: 'List roles',
      description: 'Lists the roles of the environment with their permissions and inheritance, by key, one page at a time.',
      security: rbacRead,
      params: EnvironmentParams,
      querystring: PageQuery,
      response: { 200: RolesList, ...errorResponses(404) },
    },
    handler: (r) => roles.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createRbacRole',
      summary: 'Create a role',
      description: `Creates a role with permissions (each optionally conditioned by CEL) and the roles it inherits. 409 \`role.already_exists\` when the key is taken. ${refusals}`,
      security: rbacWrite,
      params: EnvironmentParams,
      body: CreateRoleBody,
      response: { 201: RoleResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ role: await roles.create(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/:role`, {
    schema: {
      tags,
      operationId: 'getRbacRole',
      summary: 'Get a role',
      description: 'Returns the role with this key, its permissions and the roles it inherits.',
      security: rbacRead,
      params: RoleParams,
      response: { 200: RoleResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ role: await roles.find(callerOf(r, 'environment'), r.params.role) }),
  });
  app.patch(`${base}/:role`, {
    schema: {
      tags,
      operationId: 'updateRbacRole',
      summary: 'Update a role',
      description: `Changes the name or description; \`permissions\` and \`inherits\` each replace the whole list. ${refusals}`,
      security: rbacWrite,
      params: RoleParams,
      body: UpdateRoleBody,
      response: { 200: RoleResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ role: await roles.update(callerOf(r, 'environment'), r.params.role, r.body) }),
  });
  app.delete(`${base}/:role`, {
    schema: {
      tags,
      operationId: 'deleteRbacRole',
      summary: 'Delete a role with its assignments',
      description: 'Deletes the role, its assignments and the inheritance from and to it, and returns its last state.',
      security: rbacWrite,
      params: RoleParams,
      response: { 200: RoleResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ role: await roles.remove(callerOf(r, 'environment'), r.params.role) }),
  });
}
