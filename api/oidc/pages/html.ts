// HTML for the sign-in pages: a tagged template that escapes every interpolated value unless it is already Html
// (built by this same template), so no page can forget to escape a user name, a client name or a message.

export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Value = Html | string | number | null | undefined | false | readonly Value[];

const render = (value: Value): string => {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly Value[]).map(render).join('');
  return escapeHtml(String(value));
};

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  return new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]!) : ''), ''));
}
