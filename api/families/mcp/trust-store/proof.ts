// Proof of possession: a JWT the entry signs with one of its active or retiring keys over a nonce we issued,
// for us (`aud`), about itself (`sub`), fresh (iat and exp within 5 minutes). Every failure is a 400 naming it.
import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWTPayload } from 'jose';
import type { TrustStoreKey } from '../../../../db/mcp/trust-store/rows.ts';
import { keyMaterialProblem } from '../../../../lib/public-jwk.ts';
import { ApiError } from '../../../errors.ts';

/** How long a proof and a challenge's nonce are good for. */
export const PROOF_WINDOW_SECONDS = 300;
const CLOCK_SKEW_SECONDS = 30;

export const proofError = (message: string, code = 'trust_store.proof_invalid') =>
  new ApiError(400, code, `The proof of possession was refused: ${message}.`, { details: [{ path: 'body.proof', message }] });

/** The keys that verify now: active ones, and retiring ones before their retiresAt. */
export const verifyingKeys = (keys: TrustStoreKey[], now = Date.now()) =>
  keys.filter((k) => k.status === 'active' || (k.status === 'retiring' && k.retiresAt !== null && Date.parse(k.retiresAt) > now));

function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired (exp)';
  if (error instanceof errors.JWTClaimValidationFailed)
    return `claim ${error.claim} ${error.reason === 'missing' ? 'is missing' : `is not valid (${error.message})`}`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify with the key';
  if (error instanceof errors.JOSEAlgNotAllowed) return "it is not signed with the key's alg";
  if (error instanceof errors.JOSEError) return error.message;
  throw error;
}

/** Checks `proof` against the entry's keys (all of them: only those that verify now are tried); returns the verifying key and the nonce to use up, or throws a 400. */
export async function checkProof(proof: string, input: { keys: TrustStoreKey[]; audience: string[]; subject: string }) {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(proof).kid;
  } catch {
    throw proofError('it is not a compact JWS (a signed JWT)');
  }
  const keys = verifyingKeys(input.keys);
  const candidates = kid === undefined ? keys : keys.filter((k) => k.kid === kid);
  if (candidates.length === 0) {
    const known = input.keys.find((k) => k.kid === kid);
    throw proofError(
      known
        ? `it is signed with key ${kid}, which is ${known.status === 'retiring' ? 'past its retirement' : known.status}`
        : `it is signed with no key of the entry (kid ${kid ?? 'absent'})`,
    );
  }
  let failure = 'it is not signed by a key of the entry';
  for (const key of candidates) {
    // A key stored before keys were checked as they are now (an RSA exponent of 1 verifies a "signature" anyone can write).
    const material = keyMaterialProblem(key.jwk);
    if (material) {
      failure = `key ${key.kid} is not a valid public key (${material.member ? `${material.member} ` : ''}${material.message})`;
      continue;
    }
    let payload: JWTPayload;
    try {
      const alg = key.alg === 'Ed25519' ? 'EdDSA' : key.alg;
      payload = (
        await jwtVerify(proof, await importJWK(key.jwk, alg), {
          algorithms: [alg, key.alg],
          audience: input.audience,
          subject: input.subject,
          maxTokenAge: PROOF_WINDOW_SECONDS,
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ['iat', 'exp', 'nonce'],
        })
      ).payload;
    } catch (error) {
      failure = describe(error);
      continue;
    }
    if (payload.exp! - payload.iat! > PROOF_WINDOW_SECONDS) throw proofError(`its lifetime (exp − iat) exceeds ${PROOF_WINDOW_SECONDS} seconds`);
    if (typeof payload.nonce !== 'string') throw proofError('claim nonce must be a string');
    return { key, nonce: payload.nonce };
  }
  throw proofError(failure);
}
