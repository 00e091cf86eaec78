// Credential formats and encryption at rest, shared by api/ services and activities/.
import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes, randomInt, timingSafeEqual, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export type CredentialPrefix = 'adsa' | 'adpat' | 'adok' | 'adenv' | 'adscim' | 'adhris' | 'adoc' | 'whsec' | 'adpl';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(43, '0');
}

function checksum(body: string): string {
  return base62(createHash('sha256').update(body).digest().subarray(0, 4)).slice(-6);
}

/** `<prefix>_<32 random bytes in base62><6-char checksum>`: recognisable by scanners, checkable offline. */
export function generateCredential(prefix: CredentialPrefix): string {
  const body = `${prefix}_${base62(randomBytes(32))}`;
  return body + checksum(body);
}

/** True when the value has the credential shape and its checksum matches (no database needed). */
export function hasValidChecksum(value: string, prefix: CredentialPrefix): boolean {
  if (!value.startsWith(`${prefix}_`) || value.length !== prefix.length + 1 + 43 + 6) return false;
  return checksum(value.slice(0, -6)) === value.slice(-6);
}

export function hashSecret(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** A 6-digit one-time code for a person to type (emailed sign-in, sign-up and second-factor codes), leading zeros kept. */
export const sixDigitCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

export function secretsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What listings show of a credential: its type prefix and the first characters. */
export function displayPrefix(value: string): string {
  return value.slice(0, value.indexOf('_') + 9);
}

// The master key as a KeyObject, made once per key: on Node 24 a cipher under a Buffer key costs ~5 times one under a
// KeyObject (the Buffer is checked and copied into a new key each time).
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObjectOf(key: Buffer): KeyObject {
  let object = keyObjects.get(key);
  if (!object) keyObjects.set(key, (object = createSecretKey(key)));
  return object;
}

/** AES-256-GCM under the master key; output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt(masterKey: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyObjectOf(masterKey), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function decrypt(masterKey: Buffer, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unrecognised ciphertext format');
  const decipher = createDecipheriv('aes-256-gcm', keyObjectOf(masterKey), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** MASTER_KEY when set; otherwise the key in DATA_DIR/master.key, generated (mode 0600) on first use. */
export async function loadMasterKey(configured: string | undefined, dataDir: string): Promise<Buffer> {
  if (configured) return Buffer.from(configured, /^[0-9a-fA-F]{64}$/.test(configured) ? 'hex' : 'base64');
  const file = path.join(dataDir, 'master.key');
  if (existsSync(file)) return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'hex');
  await fs.mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  await fs.writeFile(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'hex');
}
