// Every API family, in registration order. A new family is one line here (plus its api/ and db/ folders,
// a migration, its scopes in ../scopes.ts and its event types in db/event-catalog.ts).
import type { Family } from './family.ts';
import meta from './platform/meta/index.ts';
import metrics from './platform/metrics/index.ts';
import oauth from './identity/oauth/index.ts';
import userinfo from './identity/userinfo/index.ts';
import serviceAccounts from './identity/service-accounts/index.ts';
import personalAccessTokens from './identity/personal-access-tokens/index.ts';
import signingKeys from './identity/signing-keys/index.ts';
import organizations from './organizations/organizations/index.ts';
import invitations from './organizations/invitations/index.ts';
import tenantLinks from './organizations/tenant-links/index.ts';
import organizationKeys from './organizations/organization-keys/index.ts';
import tenants from './tenants/tenants/index.ts';
import seats from './tenants/seats/index.ts';
import domains from './tenants/domains/index.ts';
import projects from './projects/projects/index.ts';
import environments from './projects/environments/index.ts';
import environmentSettings from './projects/environment-settings/index.ts';
import smsProviders from './projects/sms-providers/index.ts';
import emailProviders from './projects/email-providers/index.ts';
import messages from './projects/messages/index.ts';
import addOns from './projects/add-ons/index.ts';
import vanityDomains from './projects/vanity-domains/index.ts';
import billing from './projects/billing/index.ts';
import events from './events/events/index.ts';
import auditLogs from './events/audit-logs/index.ts';
import webhooks from './events/webhooks/index.ts';
import notificationChannels from './events/notification-channels/index.ts';
import processOutbox from './platform/process-outbox/index.ts';
import authzen from './access/authzen/index.ts';
import apiSecrets from './access/api-secrets/index.ts';
import rbac from './access/rbac/index.ts';
import fga from './access/fga/index.ts';
import directoryUsers from './directory/users/index.ts';
import directoryGroups from './directory/groups/index.ts';
import directoryPasswords from './directory/passwords/index.ts';
import directoryPasskeys from './directory/passkeys/index.ts';
import directoryMfaFactors from './directory/mfa-factors/index.ts';
import impersonation from './access/impersonation/index.ts';
import threats from './threats/threats/index.ts';
import mcpEvents from './threats/mcp-events/index.ts';
import trustStore from './mcp/trust-store/index.ts';
import elevate from './access/elevate/index.ts';
import provisioningTokens from './provisioning/provisioning-tokens/index.ts';
import scim from './provisioning/scim/index.ts';
import hris from './provisioning/hris/index.ts';
import oidcProvider from './oidc/provider/index.ts';
import oidcClients from './oidc/clients/index.ts';
import oidcClientAllowlist from './oidc/client-allowlist/index.ts';
import oidcSettings from './oidc/settings/index.ts';
import oidcMfaSettings from './oidc/mfa-settings/index.ts';
import passwordPolicy from './projects/password-policy/index.ts';
import protectionPolicies from './projects/protection-policies/index.ts';
import forms from './projects/forms/index.ts';
import bruteForceLockouts from './projects/brute-force-lockouts/index.ts';
import connectedApps from './oidc/connected-apps/index.ts';
import directorySessions from './directory/sessions/index.ts';
import oidcSignIn from './oidc/sign-in/index.ts';
import oidcAccount from './oidc/account/index.ts';
import accessPage from './access/access-page/index.ts';
import oidcSso from './oidc/sso/index.ts';
import oidcSignInSettings from './oidc/sign-in-settings/index.ts';
import oidcSigningKeys from './oidc/signing-keys/index.ts';
import mcpAuthorization from './oidc/mcp-authorization/index.ts';
import widgets from './widgets/widgets/index.ts';
import adminPortal from './organizations/admin-portal/index.ts';

export const FAMILIES: readonly Family[] = [
  meta,
  metrics,
  oauth,
  userinfo,
  serviceAccounts,
  personalAccessTokens,
  signingKeys,
  organizations,
  invitations,
  tenantLinks,
  organizationKeys,
  tenants,
  seats,
  domains,
  projects,
  environments,
  environmentSettings,
  smsProviders,
  emailProviders,
  messages,
  addOns,
  vanityDomains,
  billing,
  events,
  auditLogs,
  webhooks,
  notificationChannels,
  processOutbox,
  authzen,
  apiSecrets,
  rbac,
  fga,
  directoryUsers,
  directoryGroups,
  directoryPasswords,
  directoryPasskeys,
  directoryMfaFactors,
  impersonation,
  threats,
  mcpEvents,
  trustStore,
  elevate,
  provisioningTokens,
  scim,
  hris,
  oidcProvider,
  oidcClients,
  oidcClientAllowlist,
  oidcSettings,
  oidcMfaSettings,
  passwordPolicy,
  protectionPolicies,
  forms,
  bruteForceLockouts,
  connectedApps,
  directorySessions,
  oidcSignIn,
  oidcAccount,
  accessPage,
  oidcSso,
  oidcSignInSettings,
  oidcSigningKeys,
  mcpAuthorization,
  widgets,
  adminPortal,
];
