// The parts of a WebAuthn response the service judges before the library verifies it, so a refusal names its reason
// (another challenge, another origin) rather than a library message. The library checks them again.

export interface ClientData {
  type: string;
  challenge: string;
  origin: string;
}

/** The response's clientDataJSON (base64url JSON), or null when it is not one. */
export function decodeClientData(clientDataJSON: unknown): ClientData | null {
  if (typeof clientDataJSON !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(clientDataJSON)) return null;
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { type, challenge, origin } = data;
    if (typeof type !== 'string' || typeof challenge !== 'string' || typeof origin !== 'string') return null;
    return { type, challenge, origin };
  } catch {
    return null;
  }
}

export type ClientDataProblem = 'verification_failed' | 'challenge_mismatch' | 'origin_mismatch';

/** What is wrong with the client data of a `type` ceremony for `challenge` at `origin`, if anything. */
export function clientDataProblem(clientDataJSON: unknown, expected: ClientData): ClientDataProblem | null {
  const data = decodeClientData(clientDataJSON);
  if (!data || data.type !== expected.type) return 'verification_failed';
  if (data.challenge !== expected.challenge) return 'challenge_mismatch';
  if (data.origin !== expected.origin) return 'origin_mismatch';
  return null;
}
