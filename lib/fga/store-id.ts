// OpenFGA's SDKs refuse store and model ids that are not ULIDs (26 Crockford base32 characters, the first ≤ 7)
// before sending. An environment is one store: its store id is the environment UUID's 128 bits in Crockford
// base32, which is reversible and needs no column. Model ids are ULIDs made when a model is written: 48 bits of
// milliseconds and 80 random bits, raised by one within the same millisecond so one instance's ids stay ordered.
// Ten lines on node:crypto rather than a dependency for them.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A ULID as OpenFGA's SDKs check it; store ids and model ids both match. */
export const ULID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** 128 bits (as a bigint) in 26 Crockford base32 characters. */
function encode(value: bigint): string {
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = ALPHABET[Number(value & 31n)]! + out;
    value >>= 5n;
  }
  return out;
}

// Every FGA request maps its store id both ways; the few ids in use are kept rather than recomputed in bigints.
const MEMO_MAX = 1000;
function memoised(compute: (key: string) => string | null) {
  const known = new Map<string, string | null>();
  return (key: string) => {
    let value = known.get(key);
    if (value === undefined) {
      value = compute(key);
      if (known.size >= MEMO_MAX) known.clear();
      known.set(key, value);
    }
    return value;
  };
}

const toStoreId = memoised((environmentId) => (UUID.test(environmentId) ? encode(BigInt(`0x${environmentId.replace(/-/g, '')}`)) : null));

/** The store id of an environment. */
export function storeIdOf(environmentId: string): string {
  const storeId = toStoreId(environmentId);
  if (storeId === null) throw new Error(`not a UUID: ${environmentId}`);
  return storeId;
}

/** The environment of a store id, or null when the value is no store id (not a ULID). Case-insensitive, as Crockford base32 is. */
export const environmentIdOf: (storeId: string) => string | null = memoised((storeId) => {
  const upper = storeId.toUpperCase();
  if (!ULID_PATTERN.test(upper)) return null;
  let value = 0n;
  for (const c of upper) value = (value << 5n) | BigInt(ALPHABET.indexOf(c));
  const hex = value.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
});

let last = { time: -1, random: 0n };

/** A new ULID (a model id). */
export function newUlid(now = Date.now()): string {
  const random = now === last.time ? last.random + 1n : BigInt(`0x${randomBytes(10).toString('hex')}`);
  last = { time: now, random };
  return encode((BigInt(now) << 80n) | (random & ((1n << 80n) - 1n)));
}
