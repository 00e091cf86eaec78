// The device-risk policy's hook (`succeeded`, after a good first factor): a step-up when the user signs in from a
// device not known for them (`challengeUnrecognized`), or from a place they could not have reached since their last
// located sign-in (`impossibleTravel`: faster than 1000 km/h `normal`, 500 km/h `strict`, counting only the distance
// beyond both locations' accuracy radii). A user with no known device yet is not stepped up: that device becomes the
// first known one. Off (never saved, or both checks off) costs nothing; on, one statement.
import { locate, SPEED_LIMIT_KMH, travel } from '../../lib/protections/geo.ts';
import { deviceRiskOn, type KnownDevices } from './known-devices.ts';
import type { ProtectionHook, StepUpVerdict } from './pipeline.ts';

export function deviceRiskHook(devices: KnownDevices): ProtectionHook {
  return {
    policy: 'device_risk',
    async succeeded(a, db): Promise<StepUpVerdict | null> {
      const settings = a.protections.device_risk;
      if (!deviceRiskOn(settings) || !a.userId) return null;
      const travelLimit = settings.impossibleTravel === 'off' ? null : SPEED_LIMIT_KMH[settings.impossibleTravel];
      const here = travelLimit === null ? null : locate(a.origin.ip);
      // Travel alone, from an address without a location: nothing to compare, no query.
      if (!settings.challengeUnrecognized && !here) return null;
      const look = await devices.look(db, a.environmentId, a.userId, a.headers);
      if (!look.anyDevice) return null;
      if (here && travelLimit !== null && look.locatedAt && look.country && look.latitude !== null && look.longitude !== null) {
        const last = { country: look.country, latitude: look.latitude, longitude: look.longitude, radiusKm: look.radiusKm ?? 0 };
        const moved = travel(last, new Date(look.locatedAt), here, new Date());
        if (moved.speedKmh > travelLimit) {
          const speedKmh = Number.isFinite(moved.speedKmh) ? moved.speedKmh : null;
          const details = {
            fromCountry: last.country,
            toCountry: here.country,
            distanceKm: moved.distanceKm,
            hours: moved.hours,
            speedKmh,
            limitKmh: travelLimit,
          };
          return { kind: 'step_up', policy: 'device_risk', reason: 'impossible_travel', details: { ...details, knownDevice: look.known } };
        }
      }
      if (settings.challengeUnrecognized && !look.known) return { kind: 'step_up', policy: 'device_risk', reason: 'unrecognized_device', details: {} };
      return null;
    },
  };
}
