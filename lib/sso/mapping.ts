// Upstream claims (OIDC ID token + userinfo, GitHub's user) or SAML attributes → the fields of a directory user.
// A connection's `mapping` names the claim or attribute of a field; unmapped fields read the usual names.
export const MAPPED_FIELDS = ['email', 'userName', 'displayName', 'givenName', 'familyName', 'nickName', 'locale', 'title'] as const;
export type MappedField = (typeof MAPPED_FIELDS)[number];
export type Mapping = Partial<Record<MappedField, string>>;
export type MappedProfile = Partial<Record<MappedField, string>>;

const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';

/** The names each field is read from when the connection's mapping does not name one. */
export const DEFAULT_NAMES: Record<'oidc' | 'saml', Record<MappedField, string[]>> = {
  oidc: {
    email: ['email'],
    userName: ['preferred_username'],
    displayName: ['name'],
    givenName: ['given_name'],
    familyName: ['family_name'],
    nickName: ['nickname'],
    locale: ['locale'],
    title: [],
  },
  saml: {
    email: ['email', 'mail', 'emailAddress', `${CLAIMS}/emailaddress`, 'urn:oid:0.9.2342.19200300.100.1.3'],
    userName: ['uid', `${CLAIMS}/name`],
    displayName: ['displayName', 'http://schemas.microsoft.com/identity/claims/displayname', 'urn:oid:2.16.840.1.113730.3.1.241'],
    givenName: ['givenName', 'firstName', `${CLAIMS}/givenname`, 'urn:oid:2.5.4.42'],
    familyName: ['sn', 'surname', 'lastName', `${CLAIMS}/surname`, 'urn:oid:2.5.4.4'],
    nickName: [],
    locale: ['locale'],
    title: ['title', 'urn:oid:2.5.4.12'],
  },
};

/** A claim's value as text: the first of an array, numbers as digits; null for anything else or empty. */
export function textOf(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'number' && Number.isFinite(first)) return String(first);
  if (typeof first !== 'string') return null;
  const trimmed = first.trim();
  return trimmed === '' ? null : trimmed.slice(0, 1024);
}

/** The user fields found in `claims`, by the connection's mapping then the protocol's usual names. */
export function mapProfile(claims: Record<string, unknown>, protocol: 'oidc' | 'saml', mapping: Mapping = {}): MappedProfile {
  const profile: MappedProfile = {};
  for (const field of MAPPED_FIELDS) {
    const names = mapping[field] ? [mapping[field]] : DEFAULT_NAMES[protocol][field];
    for (const name of names) {
      const value = textOf(claims[name]);
      if (value !== null) {
        profile[field] = value;
        break;
      }
    }
  }
  if (profile.email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(profile.email)) delete profile.email;
  return profile;
}
