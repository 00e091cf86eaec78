// A form (SPEC Form) and its attachment to a hook point of the hosted sign-in (SPEC FormAttachment).
import { z } from 'zod';
import { isoTimestamp, uuid } from '../shared/rows.ts';

export const FORM_STATUSES = ['draft', 'published'] as const;
export type FormStatus = (typeof FORM_STATUSES)[number];
export const HOOK_TYPES = ['pre_signup', 'post_signup', 'pre_signin', 'post_signin'] as const;
export type HookType = (typeof HOOK_TYPES)[number];

export const Form = z
  .object({
    id: uuid,
    environmentId: uuid,
    name: z.string(),
    key: z.string(),
    status: z.enum(FORM_STATUSES).describe('draft: `version` is being edited; published: `version` is the live one'),
    definition: z.record(z.string(), z.unknown()).describe('The definition of `version` (the draft’s while one is edited)'),
    version: z.number().int().describe('The version being edited (draft), or the latest published one (published)'),
    publishedVersion: z
      .number()
      .int()
      .nullable()
      .describe('The latest published version, which the hosted pages render; null until the form is first published'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Form' });
export type Form = z.infer<typeof Form>;

export const FormVersion = z
  .object({
    formId: uuid,
    version: z.number().int(),
    name: z.string(),
    definition: z.record(z.string(), z.unknown()),
    publishedAt: isoTimestamp,
  })
  .meta({ id: 'FormVersion' });
export type FormVersion = z.infer<typeof FormVersion>;

export const FormAttachment = z
  .object({
    id: uuid,
    environmentId: uuid,
    formId: uuid,
    hookType: z.enum(HOOK_TYPES),
    enabled: z.boolean(),
    rank: z.number().int().describe('Forms of one hook point render in ascending rank (then oldest first)'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'FormAttachment' });
export type FormAttachment = z.infer<typeof FormAttachment>;
