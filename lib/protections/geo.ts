// IP geolocation for the device-risk policy's impossible travel: geoip-lite's bundled database (no network call),
// great-circle distance and the speed between two sign-ins. geoip-lite reads its whole database into memory when it is
// first required (~110 MB of RSS, ~0.3 s of blocking read, once per process), so it is loaded on the first lookup,
// which only a policy with impossible travel on makes.
import { createRequire } from 'node:module';
import type * as GeoIp from 'geoip-lite';

export interface Location {
  /** ISO 3166-1 alpha-2. */
  country: string;
  latitude: number;
  longitude: number;
  /** The database's accuracy radius around the point, in km. */
  radiusKm: number;
}

let geoip: typeof GeoIp | undefined;
const load = () => (geoip ??= createRequire(import.meta.url)('geoip-lite') as typeof GeoIp);

/** Whether the database is in memory (it is loaded by the first `locate`). */
export const geoLoaded = () => geoip !== undefined;

/** Where the database places `ip`, or null: private, loopback, reserved and unknown addresses have no location. */
export function locate(ip: string | null | undefined): Location | null {
  if (!ip) return null;
  const found = load().lookup(ip);
  if (!found || !found.country || !Array.isArray(found.ll)) return null;
  const [latitude, longitude] = found.ll;
  return { country: found.country, latitude, longitude, radiusKm: found.area || 0 };
}

const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** The great-circle distance between two points in km (haversine). */
export function distanceKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

export interface Travel {
  /** The distance the two locations are certainly apart: the great-circle distance less both accuracy radii (≥ 0). */
  distanceKm: number;
  hours: number;
  /** km/h; Infinity for a distance covered in no time. */
  speedKmh: number;
}

/** The travel from `from` (at `fromAt`) to `to` (at `toAt`), counting only the distance beyond the accuracy radii. */
export function travel(from: Location, fromAt: Date, to: Location, toAt: Date): Travel {
  const distance = Math.max(0, distanceKm(from, to) - from.radiusKm - to.radiusKm);
  const hours = Math.max(0, toAt.getTime() - fromAt.getTime()) / 3_600_000;
  const speedKmh = distance === 0 ? 0 : hours === 0 ? Infinity : distance / hours;
  return { distanceKm: Math.round(distance), hours: Math.round(hours * 100) / 100, speedKmh: speedKmh === Infinity ? speedKmh : Math.round(speedKmh) };
}

/** The speed above which a travel is impossible, by the policy's `impossibleTravel`. */
export const SPEED_LIMIT_KMH = { normal: 1000, strict: 500 } as const;
