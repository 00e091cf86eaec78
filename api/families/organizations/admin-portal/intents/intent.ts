// What each portal intent is: a page rendered for the session, and the form actions it accepts (POST /portal/<action>).
// An action answers a notice shown at the top of the page again (a secret shown once, an error), or a redirect.
import type { z } from 'zod';
import type { DatabasePool } from 'slonik';
import type { PortalSession } from '../../../../../db/organizations/admin-portal/rows.ts';
import { ApiError } from '../../../../errors.ts';
import type { Html } from '../../../../oidc/pages/html.ts';
import type { PortalCaller } from '../caller.ts';
import type { PortalPage } from '../portal-page.ts';
import type { PortalServices } from '../services.ts';

export interface PortalContext {
  session: PortalSession;
  caller: PortalCaller;
  csrf: string;
  services: PortalServices;
  pool: DatabasePool;
  masterKey: Buffer;
  publicBaseUrl: string;
  allowPrivateNetworkTargets: boolean;
  query: Record<string, string | undefined>;
}

export type Form = Record<string, string | undefined>;
export type ActionResult = { notice: Html } | { redirect: string };

export interface Intent {
  render(ctx: PortalContext, notice?: Html): Promise<PortalPage>;
  actions: Record<string, (ctx: PortalContext, form: Form) => Promise<ActionResult>>;
}

/** The form checked by the family's own request schema: a 400 naming each wrong field, as the API answers. */
export function parseForm<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(form)', message: i.message }));
  throw new ApiError(400, 'request.invalid', `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });
}

/** A form field, trimmed; undefined when empty. */
export const field = (form: Form, name: string) => {
  const value = form[name]?.trim();
  return value ? value : undefined;
};

export const FIRST_PAGE = { limit: 50, offset: 0 };
