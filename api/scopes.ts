// Management scopes: `<family>:read` and `<family>:write` (write implies read) per tag family, and `*`.
export const SCOPE_FAMILIES = [
  'organizations',
  'tenants',
  'projects',
  'environments',
  'service-accounts',
  'personal-access-tokens',
  'signing-keys',
  'directory',
  'api-secrets',
  'impersonation',
  'oidc-clients',
  'environment-settings',
  'email-providers',
  'sms-providers',
  // The messages sent through an environment's providers (read only; a bounce arrives by the vendor's webhook).
  'messages',
  'connected-apps',
  'add-ons',
  'vanity-domains',
  'organization-keys',
  'threats',
  'provisioning-tokens',
  'billing',
  'audit',
  'events',
  'elevate',
  // Administering elevate policies, apart from requesting and deciding (`elevate`): a requester never edits the
  // policy that approves it.
  'elevate-policies',
  'webhooks',
  'notification-channels',
  'widgets',
  'admin-portal',
  'rbac',
  'mcp-trust-store',
  'authzen',
  // The FGA store of an environment (/v1/fga, OpenFGA's API): `fga:read` reads and asks, `fga:write` writes.
  'fga',
  // The deployment's Prometheus metrics (GET /metrics): counts and timings of every tenant, no tenant data.
  'metrics',
] as const;

export type ScopeFamily = (typeof SCOPE_FAMILIES)[number];
export type Scope = `${ScopeFamily}:${'read' | 'write'}` | '*';

const KNOWN = new Set<string>(['*', ...SCOPE_FAMILIES.flatMap((f) => [`${f}:read`, `${f}:write`])]);

export const isKnownScope = (scope: string): boolean => KNOWN.has(scope);

// Reads another family's scope also grants: requesters (`elevate:read`) see the policies they may ask under.
const ALSO_GRANTED_BY: Partial<Record<Scope, Scope>> = { 'elevate-policies:read': 'elevate:read' };

/** Whether a set of held scopes grants `required`. */
export function grants(held: readonly string[], required: string): boolean {
  if (held.includes('*') || held.includes(required)) return true;
  if (!required.endsWith(':read')) return false;
  if (held.includes(`${required.slice(0, -5)}:write`)) return true;
  const also = ALSO_GRANTED_BY[required as Scope];
  return also !== undefined && grants(held, also);
}

/** The scopes of `requested` that `held` grants, keeping only those; `*` is granted only by `*`. */
export function narrow(held: readonly string[], requested: readonly string[]): string[] {
  return requested.filter((s) => (s === '*' ? held.includes('*') : grants(held, s)));
}
