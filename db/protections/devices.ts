// The devices users signed in from (known_devices, 0049), for the device-risk policy: one statement to judge a sign-in
// (is this device known for the user, does the user have any, where and when were they last located), one to record a
// successful sign-in's device.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp } from '../shared/rows.ts';
import type { StatementBatch } from '../shared/statement-batch.ts';

export const DeviceLook = z.object({
  anyDevice: z.boolean(),
  known: z.boolean(),
  country: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  radiusKm: z.number().nullable(),
  locatedAt: isoTimestamp.nullable(),
});
export type DeviceLook = z.infer<typeof DeviceLook>;

export interface DeviceSeen {
  userId: string;
  deviceId: string;
  fingerprint: string;
  userAgent: string | null;
  ip: string | null;
  location: { country: string; latitude: number; longitude: number; radiusKm: number } | null;
}

/** How long a device stays known without a sign-in from it (the device cookie's Max-Age, the most browsers keep). */
export const DEVICE_DAYS = 400;

/**
 * What the policy needs of `userId` at a sign-in from `deviceId` (null: no device cookie) with `fingerprint`, as a
 * statement of the protections' batch (api/protections/pipeline.ts).
 */
export async function lookAtDevice(batch: StatementBatch, environmentId: string, userId: string, deviceId: string | null, fingerprint: string) {
  const [look] = await batch.rows(
    sql.fragment`
      SELECT
        EXISTS (SELECT 1 FROM known_devices WHERE environment_id = ${environmentId} AND user_id = ${userId}) AS "anyDevice",
        EXISTS (SELECT 1 FROM known_devices
                WHERE environment_id = ${environmentId} AND user_id = ${userId} AND device_id = ${deviceId} AND fingerprint = ${fingerprint}) AS known,
        l.country, l.latitude, l.longitude, l.radius_km AS "radiusKm", l.located_at AS "locatedAt"
      FROM (SELECT 1) AS one
      LEFT JOIN LATERAL (
        SELECT country, latitude, longitude, radius_km, located_at FROM known_devices
        WHERE environment_id = ${environmentId} AND user_id = ${userId} AND located_at IS NOT NULL
        ORDER BY located_at DESC LIMIT 1
      ) AS l ON true`,
    DeviceLook,
  );
  return look!;
}

/** The known devices of one environment: every statement is bound to `environmentId`. */
export function createKnownDeviceQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Records a successful sign-in from a device (dropping the user's devices unseen for DEVICE_DAYS). */
    seen: async (d: DeviceSeen): Promise<void> => {
      const l = d.location;
      await db.query(sql.unsafe`
        WITH stale AS (
          DELETE FROM known_devices
          WHERE environment_id = ${environmentId} AND user_id = ${d.userId} AND last_seen_at < now() - make_interval(days => ${DEVICE_DAYS})
        )
        INSERT INTO known_devices (environment_id, user_id, device_id, fingerprint, user_agent, last_ip, country, latitude, longitude, radius_km, located_at)
        VALUES (${environmentId}, ${d.userId}, ${d.deviceId}, ${d.fingerprint}, ${d.userAgent?.slice(0, 512) ?? null}, ${d.ip},
          ${l?.country ?? null}, ${l?.latitude ?? null}, ${l?.longitude ?? null}, ${l ? Math.round(l.radiusKm) : null}, ${l ? sql.fragment`now()` : null})
        ON CONFLICT (environment_id, user_id, device_id) DO UPDATE SET
          fingerprint = EXCLUDED.fingerprint,
          user_agent = EXCLUDED.user_agent,
          last_seen_at = now(),
          last_ip = EXCLUDED.last_ip,
          country = COALESCE(EXCLUDED.country, known_devices.country),
          latitude = COALESCE(EXCLUDED.latitude, known_devices.latitude),
          longitude = COALESCE(EXCLUDED.longitude, known_devices.longitude),
          radius_km = COALESCE(EXCLUDED.radius_km, known_devices.radius_km),
          located_at = COALESCE(EXCLUDED.located_at, known_devices.located_at)`);
    },
  };
}
