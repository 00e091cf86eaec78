import { callerOf } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import type { App } from '../../../types.ts';
import { ELEVATE_BASE, elevateRead, elevateWrite, tags } from './policies-routes.ts';
import type { RequestService } from './requests-service.ts';
import { CancelBody, CreateRequestBody, DecideBody, EnvironmentParams, RequestParams, RequestResponse, RequestsList, RequestsQuery } from './schemas.ts';

const base = `${ELEVATE_BASE}/requests`;

export function requestRoutes(app: App, requests: RequestService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listElevateRequests',
      summary: 'List access requests',
      description: 'Lists the access requests of the environment, oldest first, optionally by state, requester or policy.',
      security: elevateRead,
      params: EnvironmentParams,
      querystring: RequestsQuery,
      response: { 200: RequestsList, ...errorResponses(404) },
    },
    handler: (r) => requests.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createElevateRequest',
      summary: 'Request elevated access',
      description:
        "Asks for a policy's target for `durationSeconds`: a directory user asks for itself, an operator names `requesterId`. " +
        'Refused with 403 `elevate.not_eligible`, 400 `elevate.duration_exceeds_maximum` (body.durationSeconds), `elevate.justification_required` ' +
        "or `elevate.ticket_mismatch`. Approved at once (with its grant) when the policy's auto-approval condition holds, unless the requester " +
        'created or replaced the policy or holds `elevate-policies:write` (never approved by itself); pending otherwise. ' +
        "403 `elevate.not_an_operator` for a user of another environment (only users of the operators' environment act for others).",
      security: elevateWrite,
      params: EnvironmentParams,
      body: CreateRequestBody,
      response: { 201: RequestResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send(await requests.create(callerOf(r, 'environment'), r.body)),
  });
  app.get(`${base}/:requestId`, {
    schema: {
      tags,
      operationId: 'getElevateRequest',
      summary: 'Get an access request',
      description: 'Returns one access request with its decisions.',
      security: elevateRead,
      params: RequestParams,
      response: { 200: RequestResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ request: await requests.find(callerOf(r, 'environment'), r.params.requestId) }),
  });
  for (const decision of ['approve', 'deny'] as const) {
    app.post(`${base}/:requestId/${decision}`, {
      schema: {
        tags,
        operationId: decision === 'approve' ? 'approveElevateRequest' : 'denyElevateRequest',
        summary: decision === 'approve' ? 'Approve an access request' : 'Deny an access request',
        description:
          (decision === 'approve'
            ? 'Records an approval; the request is approved (and its grant made) once it has the approvals its policy requires. '
            : 'Denies the request. ') +
          'The caller decides as the directory user it is (an operator names `approverId`). 403 `elevate.self_approval`, 403 `elevate.not_an_approver`, ' +
          '403 `elevate.not_an_operator` (a user of another environment), ' +
          '409 `elevate.already_decided` naming the current state.',
        security: elevateWrite,
        params: RequestParams,
        body: DecideBody,
        response: { 200: RequestResponse, ...errorResponses(404, 409) },
      },
      handler: (r) => requests[decision](callerOf(r, 'environment'), r.params.requestId, r.body ?? {}),
    });
  }
  app.post(`${base}/:requestId/cancel`, {
    schema: {
      tags,
      operationId: 'cancelElevateRequest',
      summary: 'Cancel an access request',
      description: 'Withdraws a pending request: its requester, or an operator. 409 `elevate.already_decided` once it is settled.',
      security: elevateWrite,
      params: RequestParams,
      body: CancelBody,
      response: { 200: RequestResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => requests.cancel(callerOf(r, 'environment'), r.params.requestId),
  });
}
