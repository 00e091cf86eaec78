// The answers a person gave to the forms a page rendered, read from the posted form body and checked against each
// field's definition: typed answers per form key, or the problems per input (each names the field's label).
import { compilePattern } from '../patterns/re2.ts';
import { phoneNumbers } from '../sms/phone.ts';
import { isDate, MAX_ANSWER_LENGTH, optionValue, textIn, type FormDefinition, type FormField } from './definition.ts';

/** A published form as a page renders it. */
export interface RenderedForm {
  formId: string;
  key: string;
  version: number;
  definition: FormDefinition;
}

export type Answer = string | number | boolean;

/** Why an answer was refused: a message key of the pages and its values (`label` always). */
export type Problem =
  | { kind: 'required' | 'email' | 'number' | 'date' | 'phone' | 'option' | 'pattern'; label: string }
  | { kind: 'tooShort' | 'tooLong'; label: string; count: number }
  | { kind: 'min' | 'max'; label: string; limit: string };

/** The input name of a field: the form key and the field name, so forms never collide with each other or the page. */
export const inputName = (form: { key: string }, field: { name: string }) => `form.${form.key}.${field.name}`;

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const codePoints = (value: string) => [...value].length;

function check(field: FormField, raw: string, label: string): { value?: Answer; problem?: Problem } {
  const v = field.validation ?? {};
  if (field.type === 'boolean') {
    const checked = raw === 'true' || raw === 'on';
    return checked || !field.required ? { value: checked } : { problem: { kind: 'required', label } };
  }
  const value = raw.trim();
  if (value === '') return field.required ? { problem: { kind: 'required', label } } : {};
  switch (field.type) {
    case 'number': {
      const n = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
      if (!Number.isFinite(n)) return { problem: { kind: 'number', label } };
      if (typeof v.min === 'number' && n < v.min) return { problem: { kind: 'min', label, limit: String(v.min) } };
      if (typeof v.max === 'number' && n > v.max) return { problem: { kind: 'max', label, limit: String(v.max) } };
      return { value: n };
    }
    case 'date':
      if (!isDate(value)) return { problem: { kind: 'date', label } };
      if (typeof v.min === 'string' && value < v.min) return { problem: { kind: 'min', label, limit: v.min } };
      if (typeof v.max === 'string' && value > v.max) return { problem: { kind: 'max', label, limit: v.max } };
      return { value };
    case 'select':
      return (field.options ?? []).some((o) => optionValue(o) === value) ? { value } : { problem: { kind: 'option', label } };
    default:
      return checkText(field, value, label);
  }
}

function checkText(field: FormField, value: string, label: string): { value?: Answer; problem?: Problem } {
  const v = field.validation ?? {};
  const length = codePoints(value);
  const max = Math.min(v.maxLength ?? MAX_ANSWER_LENGTH, MAX_ANSWER_LENGTH);
  if (v.minLength !== undefined && length < v.minLength) return { problem: { kind: 'tooShort', label, count: v.minLength } };
  if (length > max) return { problem: { kind: 'tooLong', label, count: max } };
  let answer = value;
  if (field.type === 'email' && !EMAIL.test(value)) return { problem: { kind: 'email', label } };
  if (field.type === 'phone') {
    const phone = phoneNumbers().parsePhoneNumberFromString(value);
    if (!phone?.isValid()) return { problem: { kind: 'phone', label } };
    answer = phone.number;
  }
  if (v.pattern !== undefined) {
    const pattern = compilePattern(v.pattern);
    // A stored pattern always compiles (checked at save); one that no longer does refuses rather than lets through.
    if (!pattern.ok || !pattern.re.matches(value)) return { problem: { kind: 'pattern', label } };
  }
  return { value: answer };
}

export interface ReadAnswers {
  /** What was posted per input name (to fill the form again on an error). */
  values: Record<string, string>;
  /** The typed answers per form key (a form's optional fields left empty are absent). */
  answers: Record<string, Record<string, Answer>>;
  /** The refused inputs by input name, in page order. */
  problems: Map<string, Problem>;
}

/** Reads and checks the answers of `forms` from a posted body, labels in `locale`. */
export function readAnswers(forms: readonly RenderedForm[], body: Record<string, unknown> | undefined, locale: string): ReadAnswers {
  const result: ReadAnswers = { values: {}, answers: {}, problems: new Map() };
  for (const form of forms) {
    const answers: Record<string, Answer> = {};
    for (const field of form.definition.fields) {
      const name = inputName(form, field);
      const posted = body?.[name];
      const raw = typeof posted === 'string' ? posted : Array.isArray(posted) && typeof posted[0] === 'string' ? posted[0] : '';
      result.values[name] = raw.slice(0, MAX_ANSWER_LENGTH * 4);
      const { value, problem } = check(field, result.values[name], textIn(field.label, locale));
      if (problem) result.problems.set(name, problem);
      else if (value !== undefined) answers[field.name] = value;
    }
    result.answers[form.key] = answers;
  }
  return result;
}
