// IP geolocation and travel speed for the device-risk policy (lib/protections/geo.ts): geoip-lite's bundled
// database, loaded on the first lookup; private and loopback addresses have no location; the distance counted is the
// great-circle distance less both accuracy radii.
import { describe, expect, it, vi } from 'vitest';
import { distanceKm, locate, SPEED_LIMIT_KMH, travel } from '../../lib/protections/geo.ts';

const at = (iso: string) => new Date(iso);

describe('geo', () => {
  it('loads the database only on the first lookup', async () => {
    // A fresh copy of the module: the tests run in a random order.
    vi.resetModules();
    const fresh = await import('../../lib/protections/geo.ts');
    expect(fresh.geoLoaded()).toBe(false);
    expect(fresh.locate(null)).toBeNull();
    expect(fresh.geoLoaded()).toBe(false);
    expect(fresh.locate('81.2.69.142')).toEqual({ country: 'GB', latitude: 52.2264, longitude: 0.4841, radiusKm: 500 });
    expect(fresh.geoLoaded()).toBe(true);
  });

  it('places public IPv4 and IPv6 addresses, and no private, loopback or documentation address', () => {
    expect(locate('133.242.0.3')?.country).toBe('JP');
    expect(locate('2001:4860:4860::8888')?.country).toBe('US');
    expect(locate('::ffff:81.2.69.142')?.country).toBe('GB');
    for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.0.1', '172.16.5.4', '::1', '203.0.113.9', 'not an ip']) expect(locate(ip), ip).toBeNull();
  });

  it('measures great-circle distances', () => {
    const paris = { latitude: 48.8566, longitude: 2.3522 };
    const london = { latitude: 51.5074, longitude: -0.1278 };
    expect(distanceKm(paris, london)).toBeCloseTo(343.5, 0);
    expect(distanceKm(paris, paris)).toBe(0);
    expect(distanceKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 })).toBeCloseTo(20015, -1);
  });

  it('counts only the distance beyond the accuracy radii, and the speed over the time between', () => {
    const gb = locate('81.2.69.142')!;
    const jp = locate('133.242.0.3')!;
    const far = travel(gb, at('2026-01-01T00:00:00Z'), jp, at('2026-01-01T12:00:00Z'));
    expect(far.distanceKm).toBe(Math.round(distanceKm(gb, jp) - 1000));
    expect(far.hours).toBe(12);
    expect(far.speedKmh).toBe(Math.round((distanceKm(gb, jp) - 1000) / 12));
    expect(far.speedKmh).toBeGreaterThan(SPEED_LIMIT_KMH.strict);
    expect(far.speedKmh).toBeLessThan(SPEED_LIMIT_KMH.normal);
    expect(travel(gb, at('2026-01-01T00:00:00Z'), jp, at('2026-01-01T00:00:00Z')).speedKmh).toBe(Infinity);
    // Within the radii: no distance, no speed, however soon.
    const near = { ...gb, latitude: gb.latitude + 3 };
    expect(travel(gb, at('2026-01-01T00:00:00Z'), near, at('2026-01-01T00:00:00Z'))).toEqual({ distanceKm: 0, hours: 0, speedKmh: 0 });
  });
});
