// The tags of the OpenAPI document, in the order Swagger UI shows them. Every operation carries exactly one of
// these (its tag family, as the interface lists them); a new family adds its line here. Only families with
// operations are listed (a test checks both ways).
export const TAGS = [
  { name: 'Health', description: 'Public endpoints about the service itself: liveness and database reachability, and this OpenAPI document.' },
  {
    name: 'Authentication',
    description:
      'How callers get and check management access tokens: the OAuth 2.0 token endpoint (client credentials of a service account), ' +
      'the JWKS that verifies the tokens, and the signing keys behind it. Not a tag family of the interface: none of them fits ' +
      'these, so they are grouped here rather than under Service accounts.',
  },
  { name: 'User info', description: 'The user a personal access token belongs to.' },
  {
    name: 'Organizations',
    description: 'Organizations that group tenants, their members, invitations (by token, join code or operator invite) and the tenants linked to them.',
  },
  {
    name: 'Tenants',
    description: 'Tenants the caller reaches, their seats (per-user access to one tenant), their verified domains and their transfer between organizations.',
  },
  { name: 'Service accounts', description: 'Machine principals of an organization, with client credentials for POST /v1/oauth/token.' },
  { name: 'Personal access tokens', description: "The caller's own personal access tokens (adpat_…): long-lived bearer tokens of a user." },
  {
    name: 'Environments',
    description: 'Environments of a project and their sign-in setup: connections, redirect URIs, SAML and SSO metadata, SDK configuration.',
  },
  {
    name: 'SMS providers',
    description: 'The SMS vendors of an environment (Twilio, MessageBird, Amazon SNS, Vonage) with sealed credentials, failover rank and a test send.',
  },
  {
    name: 'Messages',
    description:
      'The messages sent through an environment’s email and SMS providers (codes, links, invitations, notices): status, provider, vendor id, attempts; never the content.',
  },
  { name: 'Organization keys', description: 'Organization keys (adok_…): bearer tokens of an organization, limited to all or some of its tenants.' },
  { name: 'Projects', description: 'Projects (applications) of a tenant, each with its environments and a default one.' },
  { name: 'Audit', description: 'Who changed what, from where, with the before and after of changed fields; paged or exported as NDJSON.' },
  { name: 'Events', description: 'The immutable event stream of a tenant, read with a cursor, and the catalog of event types.' },
  {
    name: 'Webhooks',
    description: 'Webhook endpoints that receive signed events with durable retries; deliveries can be inspected, recovered and redelivered.',
  },
  { name: 'Notification channels', description: 'Generic webhook, chat and monitoring channels that receive notifications of events, with a test send.' },
  {
    name: 'Email providers',
    description: 'The email providers of an environment (Resend, SendGrid, Amazon SES, Postmark, SMTP): sealed secrets, one active, a test send.',
  },
  {
    name: 'Add-ons',
    description:
      'The add-ons of an environment; today the bot challenges (Cloudflare Turnstile, hCaptcha, reCAPTCHA) the hosted sign-in shows: sealed secrets, one active, a siteverify test.',
  },
  {
    name: 'Vanity domains',
    description:
      'Custom auth hosts of an environment: the DNS records to create, a certificate obtained over ACME and renewed, TLS by SNI, and the OpenID issuer on the host.',
  },
  {
    name: 'Processes',
    description:
      'Operators only: the process outbox, where starts and messages of durable processes that the engine refused wait for a retry or, out of attempts, for an operator.',
  },
  {
    name: 'API secrets',
    description:
      'Environment API secrets (adenv_…): the credentials of AuthZEN callers, of the trust-store runtime and of FGA API callers; each selects its environment.',
  },
  {
    name: 'AuthZEN',
    description:
      'OpenID AuthZEN Authorization API 1.0 at /access/v1: access evaluation, batch evaluations and subject, resource and action search, ' +
      "answered from the environment's model and authenticated by an environment API secret (adenv_…).",
  },
  {
    name: 'RBAC',
    description:
      'The access model of an environment: resource types and their actions (permissions), stored resource instances with attributes, ' +
      'roles with inheritance and CEL conditions, and role assignments (grants) to users and groups.',
  },
  {
    name: 'FGA',
    description:
      'Relationship-based authorization with OpenFGA’s HTTP API at /v1/fga: each environment is one store (its `fgaStoreId`) holding authorization models, ' +
      'relationship tuples with their change log, and assertions; check, batch check, expand, list objects and list users. OpenFGA’s SDKs work unchanged; ' +
      'authenticated by an environment API secret with the purpose `fga` or a management token with `fga:read` / `fga:write`.',
  },
  {
    name: 'Elevate',
    description:
      'Just-in-time elevated access: policies (eligible users, approvers, durations), access requests decided by approvers or a CEL condition, ' +
      'and time-bound grants of an RBAC role or group membership that count in AuthZEN decisions while active.',
  },
  {
    name: 'Directory',
    description: 'Users and groups of an environment: the subjects of access decisions, with custom attributes for conditions.',
  },
  {
    name: 'Impersonation',
    description:
      'Time-boxed grants for a support operator to act as a directory user, with an RFC 8693-style token (`sub` the user, `act` the operator), ' +
      'every use audited on behalf of the user; the environment settings that bound them.',
  },
  {
    name: 'Threats',
    description:
      'Threats of an environment, detected from MCP runtime events or recorded by hand: triage, notes, resolve or dismiss, reopen, and alerting to notification channels.',
  },
  {
    name: 'MCP Events',
    description:
      'MCP runtime events (tool invocations, observed tool manifests, failed authentications) reported with an environment API secret of purpose mcp.',
  },
  {
    name: 'MCP Trust Store',
    description:
      'The agents, MCP servers and workloads that may act in an environment: their public keys (with rotation), the tools each may call, ' +
      'the pinned tool manifest of each MCP server, verification (proof of possession, tools/list) and runtime resolution with an environment API secret (purpose mcp).',
  },
  {
    name: 'OIDC clients',
    description:
      'Relying parties of the environment’s OpenID provider (client secrets adoc_… shown once, at register and rotate), Agent Sign-In ' +
      'clients, and the client allowlist that limits which clients may sign the environment’s users in.',
  },
  {
    name: 'Environment settings',
    description:
      'How the environment’s OpenID provider shapes tokens and sessions: JWT claim mappings (extra claims from user fields, attributes or ' +
      'static values) and the session config (session and token lifetimes, remember-me).',
  },
  {
    name: 'Connected apps',
    description:
      'The consents users gave the environment’s OIDC clients, per environment and per user, and their revocation with every token issued under them.',
  },
  {
    name: 'Provisioning tokens',
    description: 'Provisioning tokens of an environment: adscim_… for SCIM 2.0 clients (Entra ID, Okta) and adhris_… for HRIS; each selects its environment.',
  },
  {
    name: 'SCIM',
    description:
      'SCIM 2.0 (RFC 7643/7644) at /v1/scim/v2: Users and Groups of the directory provisioned by an identity provider, with discovery, ' +
      'filters, PATCH and Bulk, authenticated by a provisioning token (adscim_…). Bodies are lenient by the SCIM spec; errors are SCIM errors.',
  },
  {
    name: 'HRIS',
    description:
      'HRIS inbound provisioning at /v1/hris/v1, mirroring SCIM: Employees (directory users with HR fields and lifecycle: prehire, dated ' +
      'termination, rehire) and Departments (directory groups with a hierarchy), with discovery, filters, PATCH and Bulk, authenticated by an adhris_… provisioning token.',
  },
  {
    name: 'Widgets',
    description:
      'Scoped, short-lived widget tokens for a directory user (issued here, verifiable against the environment JWKS), and the widget API under /v1/widgets ' +
      'that accepts only them, within their kind and scopes, from their origins; the web components are served at /v1/widgets/widgets.js.',
  },
  {
    name: 'Billing',
    description:
      'An environment’s plans and features catalog, the subscriptions of organizations and the entitlements they give (also `subject.entitlements` ' +
      'in AuthZEN conditions), synced with Stripe (the `stripe` add-on): products and prices pushed, subscriptions and invoices received by webhook and pulled.',
  },
  {
    name: 'Admin Portal',
    description:
      'Time-limited, single-use setup links for an organization’s admins: opening one starts a portal session on a hosted page where the admin ' +
      'configures SSO, directory sync, a domain, a webhook endpoint, or reads the audit log (docs/admin-portal.md).',
  },
] as const;

export type TagName = (typeof TAGS)[number]['name'];
