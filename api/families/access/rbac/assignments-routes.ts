import { callerOf } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  AssignmentParams,
  AssignmentResponse,
  AssignmentsList,
  AssignmentsQuery,
  CreateAssignmentBody,
  EnvironmentParams,
  UpdateAssignmentBody,
} from './schemas.ts';
import { RBAC_BASE, rbacRead, rbacWrite } from './resource-types-routes.ts';
import type { AssignmentService } from './assignments-service.ts';
import type { App } from '../../../types.ts';

const tags = ['RBAC'];
const base = `${RBAC_BASE}/assignments`;

export function assignmentRoutes(app: App, assignments: AssignmentService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listRbacAssignments',
      summary: 'List role assignments',
      description: 'Lists the role assignments (grants) of the environment, oldest first, optionally of one role, user or group.',
      security: rbacRead,
      params: EnvironmentParams,
      querystring: AssignmentsQuery,
      response: { 200: AssignmentsList, ...errorResponses(404) },
    },
    handler: (r) => assignments.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createRbacAssignment',
      summary: 'Assign a role to a user or a group',
      description:
        'Grants a role to exactly one of `userId` or `groupId` (a user or group of this environment), optionally limited to listed resource instances and conditioned by CEL. ' +
        '400 naming the field for an unknown role, user, group or resource type; 400 `rbac.invalid_condition` naming `body.condition` for a condition that does not compile.',
      security: rbacWrite,
      params: EnvironmentParams,
      body: CreateAssignmentBody,
      response: { 201: AssignmentResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send({ assignment: await assignments.create(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/:assignmentId`, {
    schema: {
      tags,
      operationId: 'getRbacAssignment',
      summary: 'Get a role assignment',
      description: 'Returns one role assignment.',
      security: rbacRead,
      params: AssignmentParams,
      response: { 200: AssignmentResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ assignment: await assignments.find(callerOf(r, 'environment'), r.params.assignmentId) }),
  });
  app.patch(`${base}/:assignmentId`, {
    schema: {
      tags,
      operationId: 'updateRbacAssignment',
      summary: 'Change the resources or the condition of a role assignment',
      description: 'Replaces the resources the grant is limited to and its condition; null clears either.',
      security: rbacWrite,
      params: AssignmentParams,
      body: UpdateAssignmentBody,
      response: { 200: AssignmentResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ assignment: await assignments.update(callerOf(r, 'environment'), r.params.assignmentId, r.body) }),
  });
  app.delete(`${base}/:assignmentId`, {
    schema: {
      tags,
      operationId: 'deleteRbacAssignment',
      summary: 'Delete a role assignment',
      description: 'Removes the grant and returns its last state.',
      security: rbacWrite,
      params: AssignmentParams,
      response: { 200: AssignmentResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ assignment: await assignments.remove(callerOf(r, 'environment'), r.params.assignmentId) }),
  });
}
