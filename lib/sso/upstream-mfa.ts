// Whether the upstream's own authentication was multi-factor, so the sign-in needs no second factor here: an OIDC ID
// token whose `amr` has `mfa` (RFC 8176) or whose `acr` names a multi-factor class, a SAML AuthnContextClassRef of a
// multi-factor class. Anything else (no claim, `pwd`, PasswordProtectedTransport…) is a single factor.

/** acr values (OIDC) and AuthnContextClassRefs (SAML) that say the upstream used more than one factor. */
export const MULTI_FACTOR_CLASSES = new Set([
  'https://refeds.org/profile/mfa',
  'http://schemas.openid.net/pape/policies/2007/06/multi-factor',
  'http://schemas.openid.net/pape/policies/2007/06/multi-factor-physical',
  'http://schemas.microsoft.com/claims/multipleauthn',
  'urn:iam:acr:mfa',
  'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract',
  'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorUnregistered',
]);

/** OIDC: `amr` contains `mfa`, or `acr` is a multi-factor class. */
export function oidcUpstreamMfa(idToken: Record<string, unknown>): boolean {
  if (Array.isArray(idToken.amr) && idToken.amr.includes('mfa')) return true;
  return typeof idToken.acr === 'string' && MULTI_FACTOR_CLASSES.has(idToken.acr);
}

/** SAML: one of the assertion's AuthnContextClassRefs is a multi-factor class. */
export const samlUpstreamMfa = (classRefs: string[]) => classRefs.some((ref) => MULTI_FACTOR_CLASSES.has(ref.trim()));
