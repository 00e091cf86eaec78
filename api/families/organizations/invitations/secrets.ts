// The secrets of an invitation: a token (32 random bytes, base64url) for links, and a short join code people
// can type (10 Crockford base32 characters, `XXXXX-XXXXX`, 50 bits). Both are shown once and stored hashed.
import { randomBytes } from 'node:crypto';
import { hashSecret } from '../../../../lib/crypto.ts';
import type { OrganizationInvitation } from '../../../../db/organizations/organizations/rows.ts';
import { conflict, invalidField } from '../../../errors.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function newInvitationSecrets() {
  const token = randomBytes(32).toString('base64url');
  const raw = [...randomBytes(10)].map((b) => CROCKFORD[b & 31]).join('');
  const code = `${raw.slice(0, 5)}-${raw.slice(5)}`;
  return { token, code, tokenHash: hashSecret(token), codeHash: codeHash(code) };
}

/** Case, dashes and spaces do not matter, and the letters people confuse with digits read as those digits. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

export const codeHash = (code: string) => hashSecret(`organization-invitation:${normalizeCode(code)}`);

const REFUSALS = {
  accepted: 'The invitation has already been accepted.',
  revoked: 'The invitation has been revoked.',
  expired: 'The invitation has expired; ask for a new one.',
} as const;

/** 409 `organization_invitation.<status>` unless the invitation is pending (and not yet due). */
export function refuseUnlessPending(invitation: OrganizationInvitation) {
  const status = invitation.status ?? 'pending';
  if (status !== 'pending') throw conflict(`organization_invitation.${status}`, REFUSALS[status]);
}

/** An expiry from the request (ISO), or the default; it must lie in the future. */
export function expiryOf(value: string | undefined, path: string): number {
  const at = value ? Date.parse(value) : Date.now() + INVITATION_TTL_MS;
  if (at <= Date.now()) throw invalidField(path, 'must be in the future');
  return at;
}
