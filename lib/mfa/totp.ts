// TOTP (RFC 6238) on `otpauth`: SHA-1, 6 digits, 30 s steps, a code accepted one step early or late. The secret is
// 160 bits (RFC 4226's recommended length) in base32, the form authenticator apps read from the otpauth:// URI;
// the QR code is drawn server-side as SVG by `qrcode`, so enrolment needs no script and no external service.
import { Secret, TOTP } from 'otpauth';
import type QRCode from 'qrcode';

// qrcode is loaded by the first enrolment that draws one, and kept.
let qrcode: Promise<typeof QRCode> | undefined;
const loadQrcode = () => (qrcode ??= import('qrcode').then((m) => m.default));

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** Steps accepted on either side of the current one (clock drift, a code typed as it changes). */
export const TOTP_WINDOW = 1;

const ALGORITHM = 'SHA1';

/** A new secret: 20 random bytes, base32 (32 characters, no padding). */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** The time step (RFC 6238 T) of a moment. */
export const totpStep = (timestampMs: number): number => TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: timestampMs });

/** The code of `secret` (base32) at a moment; `digits` is a parameter for the RFC's 8-digit test vectors. */
export const totpCode = (secret: string, timestampMs: number, digits = TOTP_DIGITS): string =>
  TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits, period: TOTP_PERIOD_SECONDS, timestamp: timestampMs });

/**
 * The time step `code` was made for, if it is the code of `secret` at that step within the window around
 * `timestampMs`; else null. Spaces a person types are ignored; anything but exactly `digits` digits is refused.
 */
export function verifyTotpCode(
  secret: string,
  code: string,
  { timestampMs = Date.now(), digits = TOTP_DIGITS, window = TOTP_WINDOW }: { timestampMs?: number; digits?: number; window?: number } = {},
): number | null {
  const token = code.replace(/\s+/g, '');
  if (!new RegExp(`^\\d{${digits}}$`).test(token)) return null;
  const delta = TOTP.validate({
    token,
    secret: Secret.fromBase32(secret),
    algorithm: ALGORITHM,
    digits,
    period: TOTP_PERIOD_SECONDS,
    timestamp: timestampMs,
    window,
  });
  return delta === null ? null : totpStep(timestampMs) + delta;
}

/** The otpauth:// URI authenticator apps enrol from (Key URI Format): `otpauth://totp/<issuer>:<label>?secret=…`. */
export const totpUri = ({ secret, issuer, label }: { secret: string; issuer: string; label: string }): string =>
  new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS }).toString();

/** The URI as a QR code: an SVG document (no script, no links), to inline in a page. */
export const totpQrSvg = async (uri: string): Promise<string> => (await loadQrcode()).toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
