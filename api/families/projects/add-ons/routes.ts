// An environment's add-ons: list, save (create or update), delete and a test of the vendor's API.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  AddOnDeliveriesList,
  AddOnDeliveriesParams,
  AddOnDeliveryDetail,
  AddOnDeliveryParams,
  AddOnParams,
  AddOnResponse,
  AddOnsList,
  AddOnSuccessResponse,
  DeliveriesQuery,
  EnvironmentScopeParams,
  SaveAddOnBody,
  TestAddOnResponse,
} from './schemas.ts';
import type { AddOnService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Add-ons'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/add-ons';
const read = requires('add-ons:read');
const write = requires('add-ons:write');

export function addOnRoutes(app: App, addOns: AddOnService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listEnvironmentAddOns',
      summary: 'List the add-ons of an environment',
      description: 'Lists the saved add-ons, one per kind, with their config and hints of their secrets (never the secrets).',
      security: read,
      params: EnvironmentScopeParams,
      response: { 200: AddOnsList, ...errorResponses(404) },
    },
    handler: (r) => addOns.list(callerOf(r, 'environment')),
  });
  app.put(`${base}/:kind`, {
    schema: {
      tags,
      operationId: 'saveEnvironmentAddOn',
      summary: 'Create or update the add-on of a kind',
      description:
        'Saves the environment’s add-on of this kind: the first save needs the config and every secret (400 `add_on.invalid` naming e.g. ' +
        '`body.secrets.secretKey`); an update may leave out the config or secrets to keep them. `active: true` makes it the only active add-on of ' +
        'its category: the active bot challenge is the one the hosted sign-in shows. Secrets are sealed and only their hints are returned. Emits `add_on.saved`.',
      security: write,
      params: AddOnParams,
      body: SaveAddOnBody,
      response: { 200: AddOnResponse, ...errorResponses(404) },
    },
    handler: (r) => addOns.save(callerOf(r, 'environment'), r.params.kind, r.body),
  });
  app.delete(`${base}/:kind`, {
    schema: {
      tags,
      operationId: 'deleteEnvironmentAddOn',
      summary: 'Delete the add-on of a kind',
      description: 'Deletes the add-on with its sealed secrets; an active bot challenge leaves the sign-in without one. Emits `add_on.deleted`.',
      security: write,
      params: AddOnParams,
      response: { 200: AddOnSuccessResponse, ...errorResponses(404) },
    },
    handler: (r) => addOns.remove(callerOf(r, 'environment'), r.params.kind),
  });
  app.post(`${base}/:kind/test`, {
    schema: {
      tags,
      operationId: 'testEnvironmentAddOn',
      summary: 'Test an add-on against its vendor',
      description:
        'A bot challenge: calls the vendor’s siteverify with the saved secret and a dummy token now and answers the vendor’s verdict; ' +
        '`secretAccepted` says whether the secret key works. segment and analytics: sends one `iam add-on tested` event for the user ' +
        '`iam-add-on-test` to the vendor’s batch API now; `success` is a 2xx, `secretAccepted` no 401 or 403, `statusCode` the answer. 404 `add_on.not_found` when the kind is not saved; 502 `add_on.test_failed` when the ' +
        'vendor cannot be reached or answers something else than siteverify’s JSON. Emits `add_on.tested` either way.',
      security: write,
      params: AddOnParams,
      response: { 200: TestAddOnResponse, ...errorResponses(404, 502) },
    },
    handler: (r) => addOns.test(callerOf(r, 'environment'), r.params.kind),
  });
  app.get(`${base}/:kind/deliveries`, {
    schema: {
      tags,
      operationId: 'listEnvironmentAddOnDeliveries',
      summary: 'List the deliveries of events to a forwarding add-on',
      description:
        'The deliveries of the environment’s events to its segment or analytics add-on, newest first, one page at a time with `cursor`, ' +
        'optionally of one status. Each is sent by the durable delivery process, with the webhook retry schedule. 404 when the kind is not saved.',
      security: read,
      params: AddOnDeliveriesParams,
      querystring: DeliveriesQuery,
      response: { 200: AddOnDeliveriesList, ...errorResponses(404) },
    },
    handler: (r) => addOns.deliveries(callerOf(r, 'environment'), r.params.kind, r.query),
  });
  app.get(`${base}/:kind/deliveries/:deliveryId`, {
    schema: {
      tags,
      operationId: 'getEnvironmentAddOnDelivery',
      summary: 'Get a delivery to a forwarding add-on with every attempt',
      description:
        'One delivery to the segment or analytics add-on with every attempt: when, how long, the status code or error, and an excerpt of the answer.',
      security: read,
      params: AddOnDeliveryParams,
      response: { 200: AddOnDeliveryDetail, ...errorResponses(404) },
    },
    handler: (r) => addOns.delivery(callerOf(r, 'environment'), r.params.kind, r.params.deliveryId),
  });
}
