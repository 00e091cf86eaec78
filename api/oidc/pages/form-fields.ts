// The fields of the forms attached to a page (lib/forms): labelled in the page's locale, filled with what was posted,
// and marked `aria-invalid` (described by the page's error block) where an answer was refused.
import { html } from './html.ts';
import { fillText, type Messages } from './i18n/index.ts';
import { optionLabel, optionValue, textIn, type FormField } from '../../../lib/forms/definition.ts';
import { inputName, type Problem, type RenderedForm } from '../../../lib/forms/answers.ts';

export interface FormsView {
  forms: readonly RenderedForm[];
  /** What was posted per input name. */
  values: Readonly<Record<string, string>>;
  /** The input names whose answer was refused. */
  invalid: ReadonlySet<string>;
  locale: string;
}

const INPUT_TYPES = { text: 'text', email: 'email', phone: 'tel', number: 'number', date: 'date' } as const;

function fieldHtml(form: RenderedForm, f: FormField, v: FormsView, t: Messages) {
  const name = inputName(form, f);
  const id = `form-${form.key}-${f.name}`;
  const value = v.values[name] ?? '';
  const label = f.required ? textIn(f.label, v.locale) : `${textIn(f.label, v.locale)} ${t.formOptional}`;
  const rules = f.validation ?? {};
  // Each attribute after the first carries its leading space, so the markup has no stray ones.
  const attributes = [
    html`id="${id}" name="${name}"`,
    f.required ? html` required` : '',
    v.invalid.has(name) ? html` aria-invalid="true" aria-describedby="error"` : '',
  ];
  if (f.type === 'boolean') {
    const checked = value === 'true' || value === 'on' ? html` checked` : '';
    return html`<label class="check"><input ${[...attributes, html` type="checkbox" value="true"`, checked]} /> ${label}</label>`;
  }
  if (f.type === 'select') {
    const options = (f.options ?? []).map((o) => {
      const text = optionLabel(o);
      const selected = optionValue(o) === value ? html` selected` : '';
      return html`<option ${[html`value="${optionValue(o)}"`, selected]}>${typeof text === 'string' ? text : textIn(text, v.locale)}</option>`;
    });
    return html`<label for="${id}">${label}</label>
      <select ${attributes}>
        <option value="">${t.formChoose}</option>
        ${options}
      </select>`;
  }
  const input = [
    ...attributes,
    html` type="${INPUT_TYPES[f.type]}" value="${value}"`,
    rules.minLength !== undefined ? html` minlength="${rules.minLength}"` : '',
    rules.maxLength !== undefined ? html` maxlength="${rules.maxLength}"` : '',
    rules.min !== undefined ? html` min="${rules.min}"` : '',
    rules.max !== undefined ? html` max="${rules.max}"` : '',
    f.type === 'number' ? html` step="any"` : '',
  ];
  return html`<label for="${id}">${label}</label> <input ${input} />`;
}

/** The fields of every attached form, in order; a form with a title is a group with it as its legend. */
export const formFields = (v: FormsView | undefined, t: Messages) =>
  (v?.forms ?? []).map((form) => {
    const fields = form.definition.fields.map((f) => fieldHtml(form, f, v!, t));
    const title = form.definition.title;
    return title
      ? html`<fieldset>
          <legend>${textIn(title, v!.locale)}</legend>
          ${fields}
        </fieldset>`
      : fields;
  });

/** The sentence saying why an answer was refused, in the page's locale (plain text: the page escapes it). */
export function problemText(p: Problem, t: Messages): string {
  const template = {
    required: t.formRequired,
    email: t.formEmail,
    number: t.formNumber,
    date: t.formDate,
    phone: t.formPhone,
    option: t.formOption,
    pattern: t.formPattern,
    tooShort: t.formTooShort,
    tooLong: t.formTooLong,
    min: t.formMin,
    max: t.formMax,
  }[p.kind];
  const values: Record<string, string> = { label: p.label };
  if ('count' in p) values.count = String(p.count);
  if ('limit' in p) values.limit = p.limit;
  return fillText(template, values);
}
