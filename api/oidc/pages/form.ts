// Pieces every sign-in form uses: the CSRF field, an error announced to screen readers that takes the focus
// (`role="alert"`, autofocus; no script needed), and a labelled input that points at the error when there is one.
import { html, type Html } from './html.ts';

export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}" />`;

/** A page's error: a sentence, or several (each failing password rule) as a list. */
export type PageError = string | readonly string[];

/** The page's error: announced, and focused on load so keyboard and screen reader users land on it. */
export const errorBlock = (error: PageError | undefined) => {
  const list = typeof error === 'string' ? [error] : (error ?? []);
  if (list.length === 0 || list[0] === '') return '';
  if (list.length === 1) return html`<p id="error" class="error" role="alert" tabindex="-1" autofocus>${list[0]}</p>`;
  return html`<div id="error" class="error" role="alert" tabindex="-1" autofocus>
    <ul>
      ${list.map((e) => html`<li>${e}</li>`)}
    </ul>
  </div>`;
};

export interface FieldOptions {
  id: string;
  label: string;
  type?: 'text' | 'email' | 'password';
  autocomplete: string;
  value?: string | undefined;
  /** Focus this field on load (ignored when the page shows an error: the error has the focus). */
  focus?: boolean;
  error?: PageError | undefined;
  extra?: Html;
}

export const field = (f: FieldOptions) => {
  const attributes = [
    html`id="${f.id}" name="${f.id}" type="${f.type ?? 'text'}" autocomplete="${f.autocomplete}" required`,
    f.value !== undefined ? html` value="${f.value}"` : '',
    f.focus && !f.error ? html` autofocus` : '',
    f.error ? html` aria-invalid="true" aria-describedby="error"` : '',
    f.extra ? html` ${f.extra}` : '',
  ];
  return html`<label for="${f.id}">${f.label}</label> <input ${attributes} />`;
};

/** The cancel form: ends the sign-in with access_denied. */
export const cancelForm = (abort: string, csrf: string, label: string) =>
  html`<form method="post" action="${abort}">${csrfField(csrf)}<button type="submit">${label}</button></form>`;
