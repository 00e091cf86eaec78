// The WebAuthn relying party of the service: its sign-in pages are served under PUBLIC_BASE_URL, so the RP id is that
// URL's hostname and the only origin a response may name is that URL's origin. Browsers refuse an IP address as an RP
// id: PUBLIC_BASE_URL must name a host (`localhost` works for development).

export interface RelyingParty {
  /** The hostname of PUBLIC_BASE_URL, e.g. `id.example.com`. */
  id: string;
  /** The origin of PUBLIC_BASE_URL, e.g. `https://id.example.com` (a non-default port included). */
  origin: string;
}

export function relyingPartyOf(publicBaseUrl: string): RelyingParty {
  const url = new URL(publicBaseUrl);
  return { id: url.hostname, origin: url.origin };
}

/** COSE algorithms a passkey may use: ES256 (-7), what every platform authenticator makes, and RS256 (-257), Windows Hello's. */
export const SUPPORTED_ALGORITHMS = [-7, -257];
