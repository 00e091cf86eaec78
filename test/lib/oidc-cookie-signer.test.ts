import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cookieSigner } from '../../api/oidc/cookies.ts';

// Keygrip's format (what oidc-provider signed with before): HMAC-SHA1 under the key string, base64 made URL-safe.
const keygripSign = (key: string, data: string) =>
  createHmac('sha1', key)
    .update(data)
    .digest('base64')
    .replace(/\/|\+|=/g, (x) => ({ '/': '_', '+': '-', '=': '' })[x]!);

describe('the provider cookie signer', () => {
  const signer = cookieSigner(['new-key', 'old-key']);

  it('signs with the first key exactly as Keygrip does, so cookies signed before the change stay valid', () => {
    expect(signer.sign('_session=abc')).toBe(keygripSign('new-key', '_session=abc'));
    expect(signer.index('_session=abc', keygripSign('old-key', '_session=abc'))).toBe(1);
    expect(signer.verify('_session=abc', keygripSign('new-key', '_session=abc'))).toBe(true);
  });

  it('refuses a signature of other data, of another key, or of another length', () => {
    const good = signer.sign('_session=abc');
    expect(signer.verify('_session=abd', good)).toBe(false);
    expect(signer.index('_session=abc', keygripSign('stranger', '_session=abc'))).toBe(-1);
    expect(signer.verify('_session=abc', good.slice(1))).toBe(false);
    expect(signer.verify('_session=abc', '')).toBe(false);
  });
});
