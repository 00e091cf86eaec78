import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  JoinTenantBody,
  SeatParams,
  SendTenantInviteBody,
  TenantInviteResponse,
  TenantMembershipResponse,
  TenantSeatMutationResponse,
  TenantSeatsResponse,
  UpdateTenantSeatBody,
} from './schemas.ts';
import { TenantParams } from '../tenants/schemas.ts';
import type { TenantSeatService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Tenants'];

const seatRules =
  'A seat gives its user this one tenant while it is active and between validFrom and validUntil; outside that ' +
  "the tenant is 404 to the user. Its scopes (if any) narrow what the user's token may do in the tenant.";

export function tenantSeatRoutes(app: App, seats: TenantSeatService) {
  app.post('/v1/tenants/join', {
    // Any valid user token may join: the invitation code is the authorization.
    schema: {
      tags,
      operationId: 'joinTenant',
      summary: 'Join a tenant with an invitation code (users only)',
      description:
        'The calling user takes the seat the invitation code stands for. 403 when the code is for another email, 404 for an unknown code, 409 when the user already holds a seat, 410 when the code has expired.',
      security: [{ bearerAuth: [] }],
      body: JoinTenantBody,
      response: { 200: TenantMembershipResponse, ...errorResponses(404, 409, 410) },
    },
    handler: (request) => seats.join(callerOf(request), request.body.invitationCode),
  });

  app.post('/v1/tenants/:tenantId/invites', {
    schema: {
      tags,
      operationId: 'sendTenantInvite',
      summary: 'Invite an email to a seat in the tenant',
      security: requires('tenants:write'),
      params: TenantParams,
      body: SendTenantInviteBody,
      description: `Creates a pending seat (or re-issues the code of the pending seat of that email). No email is sent: the response carries the join code once. ${seatRules}`,
      response: { 201: TenantInviteResponse, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => reply.status(201).send(await seats.invite(callerOf(request, 'tenant'), request.body)),
  });

  app.get('/v1/tenants/:tenantId/seats', {
    schema: {
      tags,
      operationId: 'listTenantSeats',
      summary: 'List the seats of a tenant',
      description: seatRules,
      security: requires('tenants:read'),
      params: TenantParams,
      querystring: PageQuery,
      response: { 200: TenantSeatsResponse, ...errorResponses(404) },
    },
    handler: (request) => seats.list(callerOf(request, 'tenant'), request.query),
  });

  app.patch('/v1/tenants/:tenantId/seats/:seatId', {
    schema: {
      tags,
      operationId: 'updateTenantSeat',
      summary: 'Update a tenant seat; its user sees the change on the next request',
      description: seatRules,
      security: requires('tenants:write'),
      params: SeatParams,
      body: UpdateTenantSeatBody,
      response: { 200: TenantSeatMutationResponse, ...errorResponses(404) },
    },
    handler: (request) => seats.update(callerOf(request, 'tenant'), request.params.seatId, request.body),
  });
}
