// The widget kinds and the scopes each may carry. A scope is `<area>:read` or `<area>:write` (write implies read,
// as for management scopes); a token carries only scopes of its kind, all of them when the request names none.
import type { WidgetKind } from '../../../../db/widgets/tokens/rows.ts';

export const WIDGET_SCOPES = {
  user_profile: ['profile:read', 'profile:write'],
  user_security: ['sessions:read', 'sessions:write', 'passkeys:read', 'passkeys:write', 'mfa:read', 'mfa:write'],
  organization_members: ['members:read', 'members:write'],
  api_keys: ['api_keys:read', 'api_keys:write'],
  audit_log: ['audit_log:read'],
} as const satisfies Record<WidgetKind, readonly string[]>;

export type WidgetScope = (typeof WIDGET_SCOPES)[WidgetKind][number];

/** Kinds that act on an organization: their token names one (`organizationId`), linked to the environment's tenant. */
export const ORGANIZATION_KINDS: readonly WidgetKind[] = ['organization_members', 'audit_log'];

/** Whether `held` grants `required` (`x:write` grants `x:read`). */
export const widgetGrants = (held: readonly string[], required: string) =>
  held.includes(required) || (required.endsWith(':read') && held.includes(`${required.slice(0, -5)}:write`));

/** The tag of a widget web component, by kind (served by GET /v1/widgets/widgets.js). */
export const ELEMENT_OF: Record<WidgetKind, string> = {
  user_profile: 'iam-user-profile',
  user_security: 'iam-user-security',
  organization_members: 'iam-organization-members',
  api_keys: 'iam-api-keys',
  audit_log: 'iam-audit-log',
};
