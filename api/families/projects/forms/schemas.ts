// Shapes of an environment's forms and their attachments (tag Environment settings; SPEC Form, FormAttachment).
import { z } from 'zod';
import { FormDefinition } from '../../../../lib/forms/definition.ts';
import { Form, FormAttachment, FormVersion, FORM_STATUSES, HOOK_TYPES } from '../../../../db/forms/rows.ts';
import { displayName, ManagementMeta, PageQuery, pageOf } from '../../../common/schemas.ts';

const meta = ManagementMeta.optional();
const required = (expected: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${expected}`) });

export const EnvironmentParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const FormParams = EnvironmentParams.extend({ formId: z.uuid() });
export const AttachmentParams = EnvironmentParams.extend({ attachmentId: z.uuid() });

const KEY = /^[a-z][a-z0-9_]{0,63}$/;

export const FormsQuery = PageQuery.extend({
  status: z.enum(FORM_STATUSES).optional().describe('Only forms in this status'),
  key: z.string().max(64).optional().describe('Only the form with this key'),
});
export type FormsQuery = z.infer<typeof FormsQuery>;

export const SaveFormBody = z
  .strictObject({
    id: z.uuid().optional().describe('A form of this environment to update; a new one is created when absent'),
    name: displayName(200).describe('A name for people (1 to 200 characters)'),
    key: z
      .string(required('a string'))
      .regex(KEY, 'must match ^[a-z][a-z0-9_]{0,63}$')
      .describe('Unique in the environment; the answers are stored on the user under `attributes.forms.<key>`'),
    definition: FormDefinition,
    status: z
      .enum(FORM_STATUSES)
      .default('draft')
      .describe('`published` freezes this save as a numbered version that the hosted pages render; `draft` (default) saves a working copy'),
  })
  .meta({ id: 'SaveFormRequest' });
export type SaveFormBody = z.infer<typeof SaveFormBody>;

export { Form, FormAttachment };
export const FormsResponse = pageOf('forms', Form).extend({ meta }).meta({ id: 'FormsResponse' });
export const SaveFormResponse = z.object({ form: Form, meta }).meta({ id: 'SaveFormResponse' });
export const FormVersionsResponse = z.object({ versions: z.array(FormVersion), meta }).meta({ id: 'FormVersionsResponse' });
export const DeleteFormResponse = z.object({ success: z.literal(true), meta }).meta({ id: 'DeleteFormResponse' });

export const AttachmentsQuery = z.strictObject({
  formId: z.uuid().optional().describe('Only the attachments of this form'),
  hookType: z.enum(HOOK_TYPES).optional().describe('Only the attachments to this hook point'),
});
export type AttachmentsQuery = z.infer<typeof AttachmentsQuery>;

export const SaveAttachmentBody = z
  .strictObject({
    formId: z.uuid(required('a form id')).describe('The form to attach'),
    hookType: z
      .enum(HOOK_TYPES, required(`one of ${HOOK_TYPES.join(', ')}`))
      .describe('Where the form is asked: the hosted sign-up page renders `pre_signup`; the other hook points are stored for later'),
    rank: z.number().int().min(0).max(1000).optional().describe('Order among the forms of the hook point, ascending (default 0; kept on update)'),
    enabled: z.boolean().optional().describe('Whether the pages render it (default true; kept on update)'),
  })
  .meta({ id: 'SaveFormAttachmentRequest' });
export type SaveAttachmentBody = z.infer<typeof SaveAttachmentBody>;

export const FormAttachmentsResponse = z.object({ attachments: z.array(FormAttachment), meta }).meta({ id: 'FormAttachmentsResponse' });
export const SaveFormAttachmentResponse = z.object({ attachment: FormAttachment, meta }).meta({ id: 'SaveFormAttachmentResponse' });
export const DeleteFormAttachmentResponse = z.object({ success: z.literal(true), meta }).meta({ id: 'DeleteFormAttachmentResponse' });
