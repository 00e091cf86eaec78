// The texts of each template in one locale: a subject and a text with `{name}` placeholders for the template's
// values. The sign-in texts are the wording the sign-in pages sent before templates (api/oidc/pages/i18n).
import type { TemplateName } from './params.ts';

export interface TemplateText {
  subject: string;
  text: string;
}

export type TemplateCatalog = Record<TemplateName, TemplateText>;
