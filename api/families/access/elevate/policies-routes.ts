import { requires, callerOf } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import type { App } from '../../../types.ts';
import type { PolicyService } from './policies-service.ts';
import { EnvironmentParams, PoliciesList, PolicyBody, PolicyParams, PolicyResponse } from './schemas.ts';

export const ELEVATE_BASE = '/v1/tenants/:tenantId/environments/:environmentId/elevate';
export const elevateRead = requires('elevate:read');
export const elevateWrite = requires('elevate:write');
// Policies are administered apart from requests (a requester never edits the policy that approves it); requesters
// read them (elevate:read grants elevate-policies:read).
const policiesRead = requires('elevate-policies:read');
const policiesWrite = requires('elevate-policies:write');
export const tags = ['Elevate'];
const base = `${ELEVATE_BASE}/policies`;

export function policyRoutes(app: App, policies: PolicyService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listElevatePolicies',
      summary: 'List elevate policies',
      description: 'Lists the just-in-time access policies of the environment, oldest first.',
      security: policiesRead,
      params: EnvironmentParams,
      querystring: PageQuery,
      response: { 200: PoliciesList, ...errorResponses(404) },
    },
    handler: (r) => policies.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createElevatePolicy',
      summary: 'Create an elevate policy',
      description:
        'Creates a policy: the target (an RBAC role, optionally limited to instances, or a directory group), who is eligible, who approves, ' +
        'durations and windows. Needs `elevate-policies:write` (`elevate:write` requests and decides, it does not administer policies). ' +
        'Notification and escalation channels must belong to this environment or to the whole tenant. ' +
        '400 naming the field for an unknown role, group, user, resource type or channel; 400 `elevate.invalid_condition` ' +
        'naming `body.autoApprove` (with line:column) for a condition that does not compile; 409 `elevate.policy_name_taken`.',
      security: policiesWrite,
      params: EnvironmentParams,
      body: PolicyBody,
      response: { 201: PolicyResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send({ policy: await policies.create(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/:policyId`, {
    schema: {
      tags,
      operationId: 'getElevatePolicy',
      summary: 'Get an elevate policy',
      description: 'Returns one policy.',
      security: policiesRead,
      params: PolicyParams,
      response: { 200: PolicyResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ policy: await policies.find(callerOf(r, 'environment'), r.params.policyId) }),
  });
  app.put(`${base}/:policyId`, {
    schema: {
      tags,
      operationId: 'replaceElevatePolicy',
      summary: 'Replace an elevate policy',
      description: 'Replaces every field of the policy (as on create). Pending requests and existing grants keep what they were made with.',
      security: policiesWrite,
      params: PolicyParams,
      body: PolicyBody,
      response: { 200: PolicyResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ policy: await policies.replace(callerOf(r, 'environment'), r.params.policyId, r.body) }),
  });
  app.delete(`${base}/:policyId`, {
    schema: {
      tags,
      operationId: 'deleteElevatePolicy',
      summary: 'Delete an elevate policy',
      description: 'Deletes the policy with its requests and grants (an active grant ends at once) and returns its last state.',
      security: policiesWrite,
      params: PolicyParams,
      response: { 200: PolicyResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ policy: await policies.remove(callerOf(r, 'environment'), r.params.policyId) }),
  });
}
