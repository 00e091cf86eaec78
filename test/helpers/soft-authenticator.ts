// A software WebAuthn authenticator and client for tests: it answers registration and authentication options with
// the JSON a browser posts back (`PublicKeyCredential.toJSON()`), made the real way: a P-256 key pair per credential
// (node:crypto), authenticator data with the UP/UV/AT flags and the attested credential data (COSE key), a `none`
// attestation object in CBOR, and ES256 signatures over authenticatorData ‖ SHA-256(clientDataJSON).
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

export interface SoftCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The signature counter of the last signature (0 for ever when the authenticator keeps none). */
  counter: number;
}

export interface SoftAuthenticatorOptions {
  /** The origin the client (the browser) reports in clientDataJSON. */
  origin: string;
  /** The authenticator model (default all zeros, as many platform authenticators without attestation send). */
  aaguid?: string;
  /** A synced (multi-device) passkey: the BE and BS flags set. */
  synced?: boolean;
  /** Whether the authenticator verifies the user (UV flag); default true. */
  userVerification?: boolean;
  /** The signature counter a new credential starts at (0: an authenticator without a counter stays at 0). */
  initialCounter?: number;
}

/** What a test changes in one ceremony to make a wrong response (another origin, another challenge, a given counter…). */
export interface CeremonyOverrides {
  origin?: string;
  challenge?: string;
  type?: string;
  rpId?: string;
  counter?: number;
  /** The credential to assert with (default: the first one the options allow). */
  credential?: SoftCredential;
  /** Registers under this credential id (a new key), ignoring excludeCredentials: a credential id already in use. */
  credentialId?: string;
  /** Omits the user handle from an assertion. */
  noUserHandle?: boolean;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64u = (data: Uint8Array) => Buffer.from(data).toString('base64url');

/** The credential's public key as a COSE_Key (EC2, ES256, P-256). */
function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return encodeCBOR(
    new Map<number, CBORType>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  private readonly options: Required<SoftAuthenticatorOptions>;

  constructor(options: SoftAuthenticatorOptions) {
    this.options = { aaguid: '00000000-0000-0000-0000-000000000000', synced: false, userVerification: true, initialCounter: 0, ...options };
  }

  private flags(extra: number) {
    const { synced, userVerification } = this.options;
    return FLAG_UP | (userVerification ? FLAG_UV : 0) | (synced ? FLAG_BE | FLAG_BS : 0) | extra;
  }

  private authenticatorData(rpId: string, flags: number, counter: number, attested?: Uint8Array) {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, overrides: CeremonyOverrides) {
    const data = {
      type: overrides.type ?? type,
      challenge: overrides.challenge ?? challenge,
      origin: overrides.origin ?? this.options.origin,
      crossOrigin: false,
    };
    return Buffer.from(JSON.stringify(data), 'utf8');
  }

  /** navigator.credentials.create(): a new discoverable credential for the options' RP and user. */
  create(options: PublicKeyCredentialCreationOptionsJSON, overrides: CeremonyOverrides = {}): RegistrationResponseJSON {
    const rpId = overrides.rpId ?? options.rp.id!;
    const excluded = new Set((options.excludeCredentials ?? []).map((c) => c.id));
    if (!overrides.credentialId && this.credentials.some((c) => c.rpId === rpId && excluded.has(c.id)))
      throw new Error('InvalidStateError: a credential of this authenticator is excluded');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = overrides.credentialId ? Buffer.from(overrides.credentialId, 'base64url') : randomBytes(32);
    const credential: SoftCredential = { id: b64u(id), rpId, userHandle: options.user.id, privateKey, publicKey, counter: this.options.initialCounter };
    this.credentials.push(credential);

    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.from(this.options.aaguid.replaceAll('-', ''), 'hex'), idLength, id, coseKey(publicKey)]);
    const authData = this.authenticatorData(rpId, this.flags(FLAG_AT), credential.counter, attested);
    const attestationObject = encodeCBOR(
      new Map<string, CBORType>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, CBORType>()],
        ['authData', authData],
      ]),
    );
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(this.clientData('webauthn.create', options.challenge, overrides)),
        attestationObject: b64u(attestationObject),
        transports: ['internal', 'hybrid'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): an assertion by an allowed credential, or by any of the RP's when none is listed. */
  get(options: PublicKeyCredentialRequestOptionsJSON, overrides: CeremonyOverrides = {}): AuthenticationResponseJSON {
    const rpId = overrides.rpId ?? options.rpId!;
    const allowed = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const credential = overrides.credential ?? this.credentials.find((c) => c.rpId === rpId && (allowed.size === 0 || allowed.has(c.id)));
    if (!credential) throw new Error('NotAllowedError: no credential of this authenticator is allowed');
    // An authenticator with a counter moves it forward on every assertion; one without stays at 0.
    const counter = overrides.counter ?? (credential.counter > 0 ? ++credential.counter : 0);
    const authData = this.authenticatorData(rpId, this.flags(0), counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(overrides.noUserHandle ? {} : { userHandle: credential.userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
