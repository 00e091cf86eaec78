// The forms of the hosted sign-up page: the published forms attached to `pre_signup`, read from the environment's
// Provider snapshot (no query per page), and the answers a sign-up posted to them.
import type Provider from 'oidc-provider';
import { snapshotOf } from '../oidc/providers.ts';
import { readAnswers, type Answer } from '../../lib/forms/answers.ts';
import { problemText, type FormsView } from '../oidc/pages/form-fields.ts';
import type { Messages } from '../oidc/pages/i18n/index.ts';

/** A form a sign-up answered: what is stored on the user (`attributes.forms.<key>`) and named in its event. */
export interface SubmittedForm {
  formId: string;
  key: string;
  version: number;
  answers: Record<string, Answer>;
}

export interface SignUpForms {
  /** What the page renders (null: no form attached). */
  view: FormsView | undefined;
  /** Why answers were refused, one sentence per field (undefined: none refused). */
  error: string[] | undefined;
  submitted: SubmittedForm[];
}

const NONE: SignUpForms = { view: undefined, error: undefined, submitted: [] };

/** The sign-up forms of the environment, with the answers of `body` when it is a posted sign-up. */
export function signUpForms(page: { provider: Provider; context: { locale: string; t: Messages } }, body?: Record<string, unknown>): SignUpForms {
  const forms = snapshotOf(page.provider).signUpForms;
  if (forms.length === 0) return NONE;
  const { locale, t } = page.context;
  const read = readAnswers(forms, body, locale);
  const view = { forms, values: body ? read.values : {}, invalid: new Set(body ? read.problems.keys() : []), locale };
  const error = body && read.problems.size > 0 ? [...read.problems.values()].map((p) => problemText(p, t)) : undefined;
  const submitted = forms.map((f) => ({ formId: f.formId, key: f.key, version: f.version, answers: read.answers[f.key] ?? {} }));
  return { view, error, submitted };
}

/** The user's `attributes` with the answers of `submitted` under `forms.<key>` (each form's answers replace its earlier ones). */
export function withAnswers(attributes: Record<string, unknown>, submitted: readonly SubmittedForm[]): Record<string, unknown> {
  const previous = attributes.forms;
  const forms = typeof previous === 'object' && previous !== null && !Array.isArray(previous) ? { ...(previous as Record<string, unknown>) } : {};
  for (const form of submitted) forms[form.key] = form.answers;
  return { ...attributes, forms };
}

/** The forms named in the sign-up's `directory.user.created` event: which key and version were answered. */
export const answeredForms = (submitted: readonly SubmittedForm[]) => submitted.map(({ formId, key, version }) => ({ formId, key, version }));
