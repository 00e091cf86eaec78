// The SAML 2.0 service provider (@node-saml/node-saml): the AuthnRequest by HTTP-Redirect, and the verification
// of a response posted to the ACS: a signed response or a signed assertion (by the IdP's certificate), audience =
// our entity id, InResponseTo = the request this round trip sent, timestamps with 60 s of clock skew, encrypted
// assertions decrypted with the environment's SP key. What fails is named by a reason (db/sso/events.ts).
import type * as NodeSaml from '@node-saml/node-saml';
import type { CacheProvider, Profile } from '@node-saml/node-saml';

export const SAML_CLOCK_SKEW_MS = 60_000;

export interface SamlSpSettings {
  entityId: string;
  acsUrl: string;
  idp: { entityId: string; ssoUrl: string; certificate: string; nameIdFormat: string | null };
  /** The SP's encryption key (PKCS#8 PEM). */
  decryptionKeyPem: string;
  /** The SP's signing key (PKCS#8 PEM): AuthnRequests are signed with it (redirect binding, RSA-SHA256). */
  signingKeyPem: string;
  /** The AuthnRequest ID the response must answer; null for an unsolicited (IdP-initiated) response. */
  requestId: string | null;
}

export type SamlFailure = 'tampered' | 'wrong_audience' | 'expired' | 'state_unknown' | 'upstream_error' | 'upstream_cancelled' | 'invalid_response';

/** Second-level status codes that mean the user did not (or could not) sign in at the IdP: a cancel, not a fault. */
const CANCELLED = /urn:oasis:names:tc:SAML:2\.0:status:(AuthnFailed|RequestDenied)\b/;

export class SamlRefusal extends Error {
  readonly reason: SamlFailure;
  constructor(reason: SamlFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Only the request of this round trip is known: InResponseTo must name it. */
const requestCache = (requestId: string | null): CacheProvider => ({
  saveAsync: async (key, value) => ({ value, createdAt: Date.now() }),
  getAsync: async (key) => (requestId !== null && key === requestId ? new Date().toISOString() : null),
  removeAsync: async (key) => key,
});

// node-saml (with its XML signature and encryption stack, about 4 MB of heap) is loaded on the first SAML request and
// kept afterwards: an instance whose environments use no SAML connection never loads it.
let loaded: Promise<typeof NodeSaml> | undefined;
let nodeSaml: typeof NodeSaml | undefined;
const loadNodeSaml = async () => (nodeSaml = await (loaded ??= import('@node-saml/node-saml')));

async function samlOf(settings: SamlSpSettings) {
  const { SAML, ValidateInResponseTo } = await loadNodeSaml();
  return new SAML({
    issuer: settings.entityId,
    callbackUrl: settings.acsUrl,
    entryPoint: settings.idp.ssoUrl,
    idpCert: settings.idp.certificate,
    idpIssuer: settings.idp.entityId,
    audience: settings.entityId,
    // Either the response or its assertion must be signed (node-saml then requires the other only if asked).
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    decryptionPvk: settings.decryptionKeyPem,
    // Every AuthnRequest is signed (the SP metadata says AuthnRequestsSigned="true"): IdPs that do not ask ignore it.
    privateKey: settings.signingKeyPem,
    signatureAlgorithm: 'sha256',
    identifierFormat: settings.idp.nameIdFormat,
    disableRequestedAuthnContext: true,
    validateInResponseTo: settings.requestId ? ValidateInResponseTo.always : ValidateInResponseTo.never,
    cacheProvider: requestCache(settings.requestId),
    generateUniqueId: () => settings.requestId ?? `_${crypto.randomUUID()}`,
  });
}

/** A fresh AuthnRequest ID (an NCName: it must not start with a digit). */
export const newRequestId = () => `_${crypto.randomUUID().replace(/-/g, '')}`;

/** The IdP's SSO URL carrying the AuthnRequest (deflated, HTTP-Redirect), `relayState` and the request's signature (SigAlg, Signature). */
export const authnRequestUrl = async (settings: SamlSpSettings, relayState: string) => (await samlOf(settings)).getAuthorizeUrlAsync(relayState, undefined, {});

export function failureOf(error: unknown): SamlFailure {
  const message = error instanceof Error ? error.message : String(error);
  // A SamlStatusError can only have been thrown once node-saml is loaded.
  if (nodeSaml && error instanceof nodeSaml.SamlStatusError) return CANCELLED.test(String(error.xmlStatus)) ? 'upstream_cancelled' : 'upstream_error';
  if (/signature/i.test(message)) return 'tampered';
  if (/audience/i.test(message)) return 'wrong_audience';
  // node-saml says "No valid subject confirmation…" when every SubjectConfirmationData is outside its time window.
  if (/expired|not yet valid|too old|no valid subject confirmation/i.test(message)) return 'expired';
  if (/InResponseTo/i.test(message)) return 'state_unknown';
  if (/SAML provider returned/i.test(message)) return 'upstream_error';
  return 'invalid_response';
}

export interface SamlAssertion {
  nameId: string;
  assertionId: string;
  /** Until when the assertion is valid: its id is kept as long to refuse a replay. */
  notOnOrAfter: string;
  inResponseTo: string | null;
  attributes: Record<string, unknown>;
  /** The AuthnContextClassRefs of the assertion's AuthnStatements (how the IdP authenticated the user). */
  authnContextClassRefs: string[];
}

const first = (value: unknown): Record<string, unknown> | undefined => (Array.isArray(value) ? value[0] : undefined) as Record<string, unknown> | undefined;

function assertionFacts(profile: Profile) {
  const assertion = profile.getAssertion?.() as { Assertion?: Record<string, unknown> } | undefined;
  const root = assertion?.Assertion;
  const id = (root?.$ as { ID?: string } | undefined)?.ID;
  const conditions = first(root?.Conditions)?.$ as { NotOnOrAfter?: string } | undefined;
  const statements = (Array.isArray(root?.AuthnStatement) ? root.AuthnStatement : []) as Record<string, unknown>[];
  const classRefs = statements
    .flatMap((statement) => (Array.isArray(statement.AuthnContext) ? statement.AuthnContext : []) as Record<string, unknown>[])
    .flatMap((context) => (Array.isArray(context.AuthnContextClassRef) ? context.AuthnContextClassRef : []) as unknown[])
    .map((ref) => (typeof ref === 'string' ? ref : (ref as { _?: unknown })?._))
    .filter((ref): ref is string => typeof ref === 'string');
  return { id, notOnOrAfter: conditions?.NotOnOrAfter, classRefs };
}

/** The verified assertion of the posted `SAMLResponse`, or a SamlRefusal naming what is wrong. */
export async function verifySamlResponse(settings: SamlSpSettings, samlResponse: string): Promise<SamlAssertion> {
  let profile: Profile | null;
  try {
    ({ profile } = await (await samlOf(settings)).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    throw new SamlRefusal(failureOf(error), (error as Error).message);
  }
  if (!profile?.nameID) throw new SamlRefusal('invalid_response', 'the assertion has no NameID');
  const facts = assertionFacts(profile);
  if (!facts.id) throw new SamlRefusal('invalid_response', 'the assertion has no ID');
  if (settings.requestId === null && profile.inResponseTo) throw new SamlRefusal('state_unknown', 'a solicited response reached the ACS without its state');
  const expiry = facts.notOnOrAfter && !Number.isNaN(Date.parse(facts.notOnOrAfter)) ? Date.parse(facts.notOnOrAfter) : Date.now() + 10 * 60_000;
  const PROFILE_FIELDS = new Set(['issuer', 'nameID', 'nameIDFormat', 'nameQualifier', 'spNameQualifier', 'sessionIndex', 'inResponseTo', 'attributes']);
  const attributes = Object.fromEntries(Object.entries(profile).filter(([k, v]) => !PROFILE_FIELDS.has(k) && typeof v !== 'function'));
  return {
    nameId: profile.nameID,
    assertionId: facts.id,
    notOnOrAfter: new Date(expiry + SAML_CLOCK_SKEW_MS).toISOString(),
    inResponseTo: (profile.inResponseTo as string | undefined) ?? null,
    attributes: { ...((profile.attributes as Record<string, unknown> | undefined) ?? {}), ...attributes },
    authnContextClassRefs: facts.classRefs,
  };
}
