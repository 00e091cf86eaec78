// A form's definition: the fields the hosted pages render and whose answers they check. Checked whole when a form is
// saved, so a stored definition always renders; a field's `pattern` runs on RE2 (../patterns/re2.ts), never RegExp.
import { z } from 'zod';
import { displayName as text } from '../text.ts';
import { compilePattern } from '../patterns/re2.ts';

export const FIELD_TYPES = ['text', 'email', 'number', 'boolean', 'select', 'date', 'phone'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const MAX_FIELDS = 50;
export const MAX_OPTIONS = 100;
export const MAX_DEFINITION_BYTES = 64 * 1024;
/** What a text answer may hold at most when the field sets no smaller maxLength. */
export const MAX_ANSWER_LENGTH = 1000;
const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A text shown on the pages: one string for every locale, or per locale (`en` required, the fallback). */
export const LocalizedText = z.union([text(200), z.strictObject({ en: text(200), de: text(200).optional(), fr: text(200).optional() })]);
export type LocalizedText = z.infer<typeof LocalizedText>;

const Option = z.union([text(200), z.strictObject({ value: text(200), label: LocalizedText })]);
export type FieldOption = z.infer<typeof Option>;

export const isDate = (value: string) => DATE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;
const date = z.string().refine(isDate, 'must be a date YYYY-MM-DD');

const Validation = z.strictObject({
  minLength: z.number().int().min(0).max(MAX_ANSWER_LENGTH).optional(),
  maxLength: z.number().int().min(1).max(MAX_ANSWER_LENGTH).optional(),
  min: z.union([z.number(), date]).optional(),
  max: z.union([z.number(), date]).optional(),
  pattern: z
    .string()
    .superRefine((source, ctx) => {
      const compiled = compilePattern(source);
      if (!compiled.ok) ctx.addIssue({ code: 'custom', message: compiled.message });
    })
    .optional(),
});

const TEXTUAL: readonly FieldType[] = ['text', 'email', 'phone'];

const Field = z
  .strictObject({
    name: z.string().regex(NAME, 'must match ^[a-z][a-z0-9_]{0,63}$'),
    type: z.enum(FIELD_TYPES),
    label: LocalizedText,
    required: z.boolean().default(false),
    options: z.array(Option).min(1).max(MAX_OPTIONS).optional(),
    validation: Validation.optional(),
  })
  .superRefine((field, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (field.type === 'select' && !field.options) issue(['options'], 'is required for a select field');
    if (field.type !== 'select' && field.options) issue(['options'], 'is only for a select field');
    if (field.options) {
      const values = field.options.map(optionValue);
      values.forEach((value, i) => values.indexOf(value) !== i && issue(['options', i], `repeats the value ${value}`));
    }
    const v = field.validation ?? {};
    for (const key of ['minLength', 'maxLength', 'pattern'] as const) {
      if (v[key] !== undefined && !TEXTUAL.includes(field.type)) issue(['validation', key], 'is only for text, email and phone fields');
    }
    for (const key of ['min', 'max'] as const) {
      const value = v[key];
      if (value === undefined) continue;
      if (field.type === 'number' && typeof value !== 'number') issue(['validation', key], 'must be a number for a number field');
      else if (field.type === 'date' && typeof value !== 'string') issue(['validation', key], 'must be a date YYYY-MM-DD for a date field');
      else if (field.type !== 'number' && field.type !== 'date') issue(['validation', key], 'is only for number and date fields');
    }
    if (v.minLength !== undefined && v.maxLength !== undefined && v.minLength > v.maxLength) issue(['validation', 'minLength'], 'must not exceed maxLength');
    if (v.min !== undefined && v.max !== undefined && typeof v.min === typeof v.max && v.min > v.max) issue(['validation', 'min'], 'must not exceed max');
  });
export type FormField = z.infer<typeof Field>;

export const FormDefinition = z
  .strictObject({
    title: LocalizedText.optional().describe('Shown as the legend of the form’s group of fields'),
    fields: z.array(Field).min(1).max(MAX_FIELDS),
  })
  .superRefine((definition, ctx) => {
    const names = definition.fields.map((f) => f.name);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i) ctx.addIssue({ code: 'custom', path: ['fields', i, 'name'], message: `repeats the field name ${name}` });
    });
    if (Buffer.byteLength(JSON.stringify(definition)) > MAX_DEFINITION_BYTES) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_DEFINITION_BYTES / 1024} KiB as JSON` });
    }
  })
  .meta({
    id: 'FormDefinition',
    description:
      `The form's fields (1 to ${MAX_FIELDS}), rendered in order: \`name\` (^[a-z][a-z0-9_]{0,63}$, unique), \`type\` (${FIELD_TYPES.join(', ')}), ` +
      '`label` (a string, or `{ en, de?, fr? }`), `required`, `options` (select only: strings or `{ value, label }`), and `validation`: ' +
      '`minLength`/`maxLength`/`pattern` (text, email, phone; `pattern` is RE2 syntax matched against the whole answer), `min`/`max` ' +
      '(numbers for number fields, YYYY-MM-DD for date fields).',
  });
export type FormDefinition = z.infer<typeof FormDefinition>;

export const optionValue = (option: FieldOption) => (typeof option === 'string' ? option : option.value);
export const optionLabel = (option: FieldOption) => (typeof option === 'string' ? option : option.label);

/** The text of `label` in `locale`, else its English. */
export const textIn = (label: LocalizedText, locale: string) =>
  typeof label === 'string' ? label : ((label as Record<string, string | undefined>)[locale] ?? label.en);
