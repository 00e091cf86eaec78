// The WebAuthn user handle of a directory user: the 16 bytes of its id (a UUID, no personal data), which a
// discoverable credential hands back on sign-in.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  if (!UUID.test(userId)) throw new Error('a user handle is made of a user id (UUID)');
  return new Uint8Array(Buffer.from(userId.replaceAll('-', ''), 'hex'));
}

/** The base64url user handle a response carries, as the user id it encodes (null when it encodes none). */
export function userIdOfHandle(handle: string): string | null {
  const bytes = Buffer.from(handle, 'base64url');
  if (bytes.length !== 16) return null;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
