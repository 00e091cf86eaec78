// The sign-in providers an environment connection can use, each with the zod schema of its `formPayload`
// (a JSON object sent as a string), which of its fields are secrets (sealed at rest, never returned), and
// what enterprise SSO metadata it has. Add a provider here and it is accepted, validated and documented.
import { z } from 'zod';
import { MAPPED_FIELDS } from '../../../../lib/sso/mapping.ts';
import { domainProblem } from '../../../common/domain-name.ts';

export type Protocol = 'oidc' | 'oauth2' | 'saml';

export interface ConnectionProvider {
  /** Default connection name. */
  name: string;
  /** How sign-in talks to the provider; null for providers without a redirect (email and password). */
  protocol: Protocol | null;
  /** The connection can be configured from a document the provider publishes (SAML metadata URL, OIDC discovery). */
  supportsMetadataUrl: boolean;
  shape: z.ZodRawShape;
  /** Fields of `shape` that are secrets: sealed at rest, never returned, kept when left out of an update. */
  secrets: string[];
  /** Rules across fields. */
  check?: (value: Record<string, unknown>, ctx: z.RefinementCtx) => void;
}

const clientId = z.string().trim().min(1, 'must not be empty').max(512);
const clientSecret = z.string().trim().min(1, 'must not be empty').max(4096);
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an https URL' }).max(2048);
const scopes = z
  .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be an OAuth scope'))
  .max(50)
  .optional();
// Sign-in through the connection (api/sso): which claim or attribute fills which user field, and whether an unknown
// upstream user is created (`jit`, the default) or refused unless a directory user is linked (`link_only`).
const claimName = z.string().trim().min(1, 'must not be empty').max(512);
const mapping = z
  .strictObject(
    Object.fromEntries(MAPPED_FIELDS.map((f) => [f, claimName.optional()])) as Record<(typeof MAPPED_FIELDS)[number], z.ZodOptional<typeof claimName>>,
  )
  .optional()
  .describe(`User field → upstream claim or attribute name (${MAPPED_FIELDS.join(', ')})`);
const provisioning = z.enum(['jit', 'link_only']).optional().describe('jit (default): create unknown users; link_only: sign in existing users only');
// Home-realm discovery (api/families/oidc/sign-in/home-realm.ts): an email at one of `domains` goes straight to this
// connection, while the domain is a verified domain of the environment's tenant; `requiredForDomains` refuses
// passwords (and other factors) for those emails.
const domains = z
  .array(
    z
      .string()
      .max(300)
      .trim()
      .toLowerCase()
      .superRefine((v, ctx) => {
        const problem = domainProblem(v);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
  )
  .max(100)
  .optional()
  .describe('Email domains that sign in through this connection (home-realm discovery); each must be a verified domain of the tenant to take effect');
const requiredForDomains = z.boolean().optional().describe('Users whose email is at one of `domains` sign in only through this connection (default false)');
const signIn = { mapping, provisioning, domains, requiredForDomains };
const oauthApp = { clientId, clientSecret, scopes, ...signIn };

export const CONNECTION_PROVIDERS = {
  email_password: { name: 'Email and password', protocol: null, supportsMetadataUrl: false, shape: {}, secrets: [] },
  google: { name: 'Google', protocol: 'oidc', supportsMetadataUrl: false, shape: oauthApp, secrets: ['clientSecret'] },
  github: { name: 'GitHub', protocol: 'oauth2', supportsMetadataUrl: false, shape: oauthApp, secrets: ['clientSecret'] },
  microsoft: {
    name: 'Microsoft',
    protocol: 'oidc',
    supportsMetadataUrl: false,
    shape: {
      ...oauthApp,
      tenant: z
        .string()
        .regex(
          /^(common|organizations|consumers|[0-9a-f-]{36}|[a-z0-9.-]+\.[a-z]{2,})$/i,
          'must be common, organizations, consumers, a directory id or a domain',
        )
        .optional(),
    },
    secrets: ['clientSecret'],
  },
  oidc: {
    name: 'OpenID Connect',
    protocol: 'oidc',
    supportsMetadataUrl: true,
    // http:// only where ALLOW_PRIVATE_NETWORK_TARGETS=true (checked when saved: connections.ts).
    shape: { issuer: httpUrl.describe('Its discovery document is <issuer>/.well-known/openid-configuration'), ...oauthApp },
    secrets: ['clientSecret'],
  },
  saml: {
    name: 'SAML',
    protocol: 'saml',
    supportsMetadataUrl: true,
    shape: {
      metadataUrl: z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
        .max(2048)
        .optional(),
      metadataXml: z
        .string()
        .min(1, 'must not be empty')
        .max(1024 * 1024, 'must be at most 1 MiB')
        .optional(),
      emailAttribute: z.string().trim().min(1).max(512).optional().describe('Assertion attribute holding the email; the NameID when absent'),
      ...signIn,
      trustEmail: z.boolean().optional().describe('The IdP vouches for the emails it asserts (default true): a directory user with that email is linked'),
      allowIdpInitiated: z.boolean().optional().describe('Accept unsolicited responses at the ACS (default false)'),
      defaultRedirect: httpUrl.optional().describe('Where an IdP-initiated sign-in or the login URL sends the browser (an application that starts a sign-in)'),
    },
    secrets: [],
    check: (value, ctx) => {
      if (value.metadataUrl === undefined && value.metadataXml === undefined) {
        ctx.addIssue({ code: 'custom', path: ['metadataUrl'], message: 'or metadataXml is required' });
      } else if (value.metadataUrl !== undefined && value.metadataXml !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['metadataXml'], message: 'must not be given together with metadataUrl' });
      }
    },
  },
} satisfies Record<string, ConnectionProvider>;

export type ProviderId = keyof typeof CONNECTION_PROVIDERS;
export const PROVIDER_IDS = Object.keys(CONNECTION_PROVIDERS) as [ProviderId, ...ProviderId[]];
export const SSO_PROVIDER_IDS = PROVIDER_IDS.filter((id) => CONNECTION_PROVIDERS[id].protocol !== null) as [ProviderId, ...ProviderId[]];

export const providerOf = (id: ProviderId): ConnectionProvider => CONNECTION_PROVIDERS[id];

/** The schema of a provider's formPayload; on update its secrets may be left out (the stored ones are kept). */
export function formPayloadSchema(id: ProviderId, mode: 'create' | 'update') {
  const provider = providerOf(id);
  const optional = mode === 'update' ? Object.fromEntries(provider.secrets.map((k) => [k, (provider.shape[k] as z.ZodType).optional()])) : {};
  const object = z.strictObject({ ...provider.shape, ...optional });
  return provider.check ? object.superRefine(provider.check) : object;
}

/** One line per provider, for the OpenAPI description of formPayload. */
export const describeProviders = () => PROVIDER_IDS.map((id) => `\`${id}\` {${Object.keys(providerOf(id).shape).join(', ')}}`).join('; ');
