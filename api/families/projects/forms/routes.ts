// An environment's forms: list, save (create, edit, publish), read, its published versions, delete.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  DeleteFormResponse,
  EnvironmentParams,
  FormParams,
  FormsQuery,
  FormsResponse,
  FormVersionsResponse,
  SaveFormBody,
  SaveFormResponse,
} from './schemas.ts';
import type { FormService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environment settings'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/forms';
const read = requires('environment-settings:read');
const write = requires('environment-settings:write');

export function formRoutes(app: App, forms: FormService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listForms',
      summary: 'List the forms of an environment',
      description: 'Lists the forms, oldest first, optionally only those in a `status` or with a `key`.',
      security: read,
      params: EnvironmentParams,
      querystring: FormsQuery,
      response: { 200: FormsResponse, ...errorResponses(404) },
    },
    handler: (r) => forms.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'saveForm',
      summary: 'Save a form: create one, or update the one named by id',
      description:
        'Without `id`, creates a form at version 1 (201); with it, updates that form (200). A draft is edited in place; saving a ' +
        'published form opens the next version, as a draft (the published one stays live) or published at once. `status: "published"` ' +
        'freezes the version (`form.published`); publishing an unchanged published form again changes nothing. 400 naming the path ' +
        'for a bad definition (`body.definition.fields.2.type`); 409 `form.key_taken` when another form of the environment has the key.',
      security: write,
      params: EnvironmentParams,
      body: SaveFormBody,
      response: { 200: SaveFormResponse, 201: SaveFormResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => {
      const { created, form } = await forms.save(callerOf(r, 'environment'), r.body);
      return reply.status(created ? 201 : 200).send({ form });
    },
  });
  app.get(`${base}/:formId`, {
    schema: {
      tags,
      operationId: 'getForm',
      summary: 'Get a form',
      description: 'The form’s working copy: the draft being edited, or its latest published version.',
      security: read,
      params: FormParams,
      response: { 200: SaveFormResponse, ...errorResponses(404) },
    },
    handler: (r) => forms.find(callerOf(r, 'environment'), r.params.formId),
  });
  app.get(`${base}/:formId/versions`, {
    schema: {
      tags,
      operationId: 'listFormVersions',
      summary: 'List the published versions of a form',
      description: 'Every version of the form that was published, newest first, with the name and definition it had.',
      security: read,
      params: FormParams,
      response: { 200: FormVersionsResponse, ...errorResponses(404) },
    },
    handler: (r) => forms.versions(callerOf(r, 'environment'), r.params.formId),
  });
  app.delete(`${base}/:formId`, {
    schema: {
      tags,
      operationId: 'deleteForm',
      summary: 'Delete a form',
      description:
        'Deletes the form with its published versions. 409 `form.attached` while it is attached to a hook point (the details name ' +
        'each attachment): detach it first. Answers already stored on users stay.',
      security: write,
      params: FormParams,
      response: { 200: DeleteFormResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => forms.remove(callerOf(r, 'environment'), r.params.formId),
  });
}
