// @simplewebauthn/server (with its ASN.1 and X.509 parsers, about 4 MB of heap) is loaded on the first passkey
// ceremony and kept afterwards: an instance whose environments use no passkeys never loads it.
import type * as WebAuthn from '@simplewebauthn/server';

let loaded: Promise<typeof WebAuthn> | undefined;
export const webauthn = () => (loaded ??= import('@simplewebauthn/server'));
