// Events of an environment's forms and their attachments, assembled into db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { Form, FormAttachment } from './rows.ts';

const form = z.looseObject({ form: Form });
const attachment = z.looseObject({ attachment: FormAttachment });

export const FORM_EVENTS = {
  'form.saved': {
    description: 'A form was created (`created: true`) or changed; `form` is its new state (a draft being edited, or the version just published).',
    data: z.looseObject({ form: Form, created: z.boolean() }),
  },
  'form.published': {
    description:
      'A version of a form was published: `version` is frozen and is what the hosted pages render wherever the form is attached. Follows the `form.saved` of the same save.',
    data: z.looseObject({ form: Form, version: z.number().int() }),
  },
  'form.deleted': { description: 'A form was deleted with its published versions; `form` is its last state.', data: form },
  'form_attachment.saved': {
    description: 'A form was attached to a hook point (`created: true`), or its attachment’s rank or enabled flag changed.',
    data: z.looseObject({ attachment: FormAttachment, created: z.boolean() }),
  },
  'form_attachment.deleted': { description: 'A form was detached from a hook point; `attachment` is its last state.', data: attachment },
} as const satisfies Record<string, EventTypeEntry>;
