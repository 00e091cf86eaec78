// Store ids are environment UUIDs in Crockford base32 (ULID-shaped, so OpenFGA's SDKs accept them), both ways.
import { describe, expect, it } from 'vitest';
import { ULID_PATTERN, environmentIdOf, newUlid, storeIdOf } from '../../../lib/fga/store-id.ts';

describe('store ids', () => {
  it.each([
    ['00000000-0000-0000-0000-000000000000', '00000000000000000000000000'],
    ['ffffffff-ffff-ffff-ffff-ffffffffffff', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'],
    ['01890a5d-ac96-774b-bcce-b302099a8057', '01H455VB4PEX5VSKNK084SN02Q'],
  ])('%s ⇄ %s', (uuid, storeId) => {
    expect(storeIdOf(uuid)).toBe(storeId);
    expect(environmentIdOf(storeId)).toBe(uuid);
    expect(environmentIdOf(storeId.toLowerCase())).toBe(uuid);
  });

  it('round-trips random UUIDs, always as a ULID', () => {
    for (let i = 0; i < 1000; i++) {
      const uuid = crypto.randomUUID();
      const storeId = storeIdOf(uuid);
      expect(storeId).toMatch(ULID_PATTERN);
      expect(environmentIdOf(storeId)).toBe(uuid);
    }
  });

  it.each(['', 'short', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ', '0000000000000000000000000U', '000000000000000000000000000'])('refuses %j', (value) => {
    expect(environmentIdOf(value)).toBeNull();
  });

  it('refuses a value that is no UUID', () => {
    expect(() => storeIdOf('not-a-uuid')).toThrow();
  });
});

describe('model ids', () => {
  it('are ULIDs, ordered within a millisecond and across', () => {
    const now = Date.now();
    const ids = [newUlid(now), newUlid(now), newUlid(now), newUlid(now + 1)];
    for (const id of ids) expect(id).toMatch(ULID_PATTERN);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
  });
});
