// Where an environment's forms are asked in the hosted sign-in: list, attach (or change), detach.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  AttachmentParams,
  AttachmentsQuery,
  DeleteFormAttachmentResponse,
  EnvironmentParams,
  FormAttachmentsResponse,
  SaveAttachmentBody,
  SaveFormAttachmentResponse,
} from './schemas.ts';
import type { FormAttachmentService } from './attachments.ts';
import type { App } from '../../../types.ts';

const tags = ['Environment settings'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/form-attachments';
const APPLIED = ' The hosted sign-up page renders the change from the next request on, on every instance.';

export function formAttachmentRoutes(app: App, attachments: FormAttachmentService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listFormAttachments',
      summary: 'List where the forms of an environment are attached',
      description: 'Lists the attachments by hook point, then rank; optionally of one form or one hook point.',
      security: requires('environment-settings:read'),
      params: EnvironmentParams,
      querystring: AttachmentsQuery,
      response: { 200: FormAttachmentsResponse, ...errorResponses(404) },
    },
    handler: (r) => attachments.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'saveFormAttachment',
      summary: 'Attach a form to a hook point, or change its attachment',
      description:
        'Attaches the form to `hookType` (201), or, when it is attached there already, changes that attachment’s `rank` and `enabled` (200). ' +
        'The pages render the form’s latest published version; a form never published renders nothing until it is. `pre_signup` forms ' +
        'are rendered on the hosted sign-up page; `post_signup`, `pre_signin` and `post_signin` are stored for later. 400 naming ' +
        '`body.formId` when it is not a form of this environment.' +
        APPLIED,
      security: requires('environment-settings:write'),
      params: EnvironmentParams,
      body: SaveAttachmentBody,
      response: { 200: SaveFormAttachmentResponse, 201: SaveFormAttachmentResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => {
      const { created, attachment } = await attachments.save(callerOf(r, 'environment'), r.body);
      return reply.status(created ? 201 : 200).send({ attachment });
    },
  });
  app.delete(`${base}/:attachmentId`, {
    schema: {
      tags,
      operationId: 'deleteFormAttachment',
      summary: 'Detach a form from a hook point',
      description: 'Deletes the attachment; the form stays.' + APPLIED,
      security: requires('environment-settings:write'),
      params: AttachmentParams,
      response: { 200: DeleteFormAttachmentResponse, ...errorResponses(404) },
    },
    handler: (r) => attachments.remove(callerOf(r, 'environment'), r.params.attachmentId),
  });
}
