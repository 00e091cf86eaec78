// Row shapes of enterprise SSO (migration 0031).
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../shared/rows.ts';

export const SsoState = z.object({
  id: z.string(),
  connectionId: uuid,
  interactionUid: z.string(),
  returnUrl: z.string(),
  codeVerifier: z.string().nullable(),
  nonce: z.string().nullable(),
  requestId: z.string().nullable(),
  expired: z.boolean(),
  consumedAt: nullableTimestamp,
});
export type SsoState = z.infer<typeof SsoState>;

export const UserIdentity = z.object({
  id: uuid,
  userId: uuid,
  connectionId: uuid,
  subject: z.string(),
  email: z.string().nullable(),
  createdAt: isoTimestamp,
  lastSignInAt: isoTimestamp,
});
export type UserIdentity = z.infer<typeof UserIdentity>;

export const SpKey = z.object({ privateKeyEncrypted: z.string(), certificate: z.string() });
export type SpKey = z.infer<typeof SpKey>;
