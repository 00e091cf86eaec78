import { sql } from 'slonik';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createDatabasePool, toIsoTimestamp } from '../../db/pool.ts';
import { createTestDatabase } from '../helpers/database.ts';

describe('timestamps', () => {
  it.each([
    ['2026-11-21 06:00:00.123456+00', '2026-11-21T06:00:00.123Z'],
    ['2026-11-21 06:00:00.1+00', '2026-11-21T06:00:00.100Z'],
    ['2026-11-21 06:00:00+00', '2026-11-21T06:00:00.000Z'],
    ['2026-11-21 08:00:00.5+02', '2026-11-21T06:00:00.500Z'],
  ])('turns %s into %s', (text, iso) => expect(toIsoTimestamp(text)).toBe(iso));

  it('reads timestamptz columns as ISO 8601 UTC strings whatever the server time zone', async () => {
    const pool = await createDatabasePool(await createTestDatabase());
    try {
      const at = await pool.oneFirst(sql.type(z.object({ at: z.string() }))`SELECT '2026-01-02 03:04:05.678+05'::timestamptz AS at`);
      expect(at).toBe('2026-01-01T22:04:05.678Z');
    } finally {
      await pool.end();
    }
  });
});
