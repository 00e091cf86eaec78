// What a client may be sent back to (RFC 6749 §3.1.2, RFC 8252, OAuth 2.0 Security BCP): an absolute https URI, http
// only on a loopback host (native apps), or a private-use scheme in reverse domain notation for public clients; never
// a fragment or a wildcard, since the provider compares redirect URIs exactly.
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
const PRIVATE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

export interface UriRules {
  /** A private-use scheme (`com.example.app:/cb`) is allowed: public (`none`) clients only. */
  privateScheme: boolean;
}

/** What is wrong with a redirect URI under `rules`, or undefined. */
export function redirectUriProblem(value: string, rules: UriRules): string | undefined {
  if (value.includes('*')) return 'must not contain a wildcard (*): redirect URIs are compared exactly';
  const url = URL.parse(value);
  if (!url) return 'must be an absolute URI';
  if (value.includes('#')) return 'must not contain a fragment (#)';
  if (url.username || url.password) return 'must not contain user credentials';
  if (url.protocol === 'https:') return url.hostname ? undefined : 'must name a host';
  if (url.protocol === 'http:') {
    return LOOPBACK.has(url.hostname) ? undefined : 'must use https (http only on a loopback host: 127.0.0.1, [::1] or localhost)';
  }
  if (!rules.privateScheme) {
    return 'must use https (http only on a loopback host); a private-use scheme (com.example.app:/callback) is for public (none) clients only';
  }
  return PRIVATE_SCHEME.test(url.protocol)
    ? undefined
    : 'must use https, http on a loopback host, or a private-use scheme in reverse domain notation (com.example.app:/callback)';
}
