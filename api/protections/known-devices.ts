// The devices of the device-risk policy: a device is a browser holding the environment's device cookie (`iam_device`, a
// random id signed under a key derived from the master key per environment; HttpOnly, SameSite=Lax, Secure behind
// https, scoped to the issuer's path, 400 days) whose coarse fingerprint (browser family, OS and preferred language,
// hashed) is the one recorded with it. `look` is the one statement the policy's check makes; `signedIn` records the
// device of a finished sign-in (setting the cookie on first sight, renewing it after).
import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { createKnownDeviceQueries, DEVICE_DAYS, lookAtDevice } from '../../db/protections/devices.ts';
import type { StatementBatch } from '../../db/shared/statement-batch.ts';
import type { DeviceRiskSettings } from '../../lib/protections/settings.ts';
import { locate } from '../../lib/protections/geo.ts';
import { cookieSigner, type CookieSigner } from '../oidc/cookies.ts';
import type { z } from 'zod';

export const DEVICE_COOKIE = 'iam_device';
type Headers = Readonly<Record<string, string | string[] | undefined>>;
type Settings = z.output<typeof DeviceRiskSettings>;

/** Whether a saved device-risk policy does anything (a saved policy may have both checks off). */
export const deviceRiskOn = (s: Settings | undefined): s is Settings => s !== undefined && (s.challengeUnrecognized || s.impossibleTravel !== 'off');

const header = (headers: Headers, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
};

/** The raw value of cookie `name` in a Cookie header. */
export function cookieValue(cookieHeader: string, name: string): string | null {
  for (const part of cookieHeader.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

const BROWSERS: [RegExp, string][] = [
  [/Edg(e|A|iOS)?\//, 'edge'],
  [/OPR\/|Opera/, 'opera'],
  [/Firefox\/|FxiOS/, 'firefox'],
  [/Chrome\/|CriOS|Chromium/, 'chrome'],
  [/Safari\//, 'safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Windows/, 'windows'],
  [/Android/, 'android'],
  [/iPhone|iPad|iPod/, 'ios'],
  [/Mac OS X|Macintosh/, 'macos'],
  [/CrOS/, 'chromeos'],
  [/Linux/, 'linux'],
];
const first = (rules: [RegExp, string][], ua: string) => rules.find(([re]) => re.test(ua))?.[1] ?? 'other';

/** The coarse fingerprint of a browser: its family, its OS and its preferred language, hashed (no version: updates keep it). */
export function fingerprintOf(headers: Headers): string {
  const ua = header(headers, 'user-agent');
  const language = (header(headers, 'accept-language').split(',')[0] ?? '').split(';')[0]!.trim().toLowerCase().split('-')[0] ?? '';
  return createHash('sha256')
    .update(`${first(BROWSERS, ua)}|${first(SYSTEMS, ua)}|${language}`)
    .digest('base64url')
    .slice(0, 32);
}

export function createKnownDevices(deps: { pool: DatabasePool; masterKey: Buffer; publicBaseUrl: string }) {
  const basePath = new URL(deps.publicBaseUrl).pathname.replace(/\/$/, '');
  const secure = deps.publicBaseUrl.startsWith('https:');
  const signers = new Map<string, CookieSigner>();
  const signerOf = (environmentId: string) => {
    let signer = signers.get(environmentId);
    if (!signer) {
      signer = cookieSigner([Buffer.from(hkdfSync('sha256', deps.masterKey, environmentId, 'iam device cookie v1', 32)).toString('base64url')]);
      signers.set(environmentId, signer);
    }
    return signer;
  };

  /** The device id of the request's cookie when its signature is this environment's, else null. */
  const deviceIdOf = (environmentId: string, headers: Headers): string | null => {
    const value = cookieValue(header(headers, 'cookie'), DEVICE_COOKIE);
    const dot = value?.lastIndexOf('.') ?? -1;
    if (!value || dot < 1) return null;
    const id = value.slice(0, dot);
    return /^[A-Za-z0-9_-]{22}$/.test(id) && signerOf(environmentId).verify(`${DEVICE_COOKIE}=${id}`, value.slice(dot + 1)) ? id : null;
  };

  return {
    deviceIdOf,

    /** What the policy's check needs: one statement (of the batch `db`). */
    look: (db: StatementBatch, environmentId: string, userId: string, headers: Headers) =>
      lookAtDevice(db, environmentId, userId, deviceIdOf(environmentId, headers), fingerprintOf(headers)),

    /**
     * Records the device of a finished sign-in while the policy is on (located when impossible travel is on) and
     * answers the Set-Cookie line that gives (or renews) the browser its device cookie; null when the policy is off.
     */
    async signedIn(environmentId: string, settings: Settings | undefined, s: { userId: string; headers: Headers; ip: string | null }): Promise<string | null> {
      if (!deviceRiskOn(settings)) return null;
      const deviceId = deviceIdOf(environmentId, s.headers) ?? randomBytes(16).toString('base64url');
      const location = settings.impossibleTravel === 'off' ? null : locate(s.ip);
      const userAgent = header(s.headers, 'user-agent') || null;
      await createKnownDeviceQueries(deps.pool, environmentId).seen({
        userId: s.userId,
        deviceId,
        fingerprint: fingerprintOf(s.headers),
        userAgent,
        ip: s.ip,
        location,
      });
      const value = `${deviceId}.${signerOf(environmentId).sign(`${DEVICE_COOKIE}=${deviceId}`)}`;
      const attributes = [
        `Max-Age=${DEVICE_DAYS * 86_400}`,
        `Path=${basePath}/v1/oidc/${environmentId}`,
        'HttpOnly',
        'SameSite=Lax',
        ...(secure ? ['Secure'] : []),
      ];
      return `${DEVICE_COOKIE}=${value}; ${attributes.join('; ')}`;
    },
  };
}

export type KnownDevices = ReturnType<typeof createKnownDevices>;
