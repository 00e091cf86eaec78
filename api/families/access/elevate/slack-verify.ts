// Verifying a request from Slack exactly as Slack signs it: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` with
// the app's signing secret, the timestamp within five minutes. Every failure is the same 401, so an unknown channel, a
// channel of another kind or one without a signing secret are told apart from a bad signature by nobody.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { createSlackApprovalQueries } from '../../../../db/access/elevate/slack.ts';
import { decrypt } from '../../../../lib/crypto.ts';
import { ApiError } from '../../../errors.ts';

const MAX_SKEW_SECONDS = 5 * 60;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const unauthorized = () => new ApiError(401, 'slack.invalid_signature', 'The request is not signed by the Slack app of this channel.');

export interface SlackChannel {
  id: string;
  tenantId: string;
  environmentId: string | null;
  approverAttribute: string;
}

export interface Signed {
  channelId: string;
  timestamp: string | string[] | undefined;
  signature: string | string[] | undefined;
  rawBody: string;
  nowSeconds: number;
}

/** The channel whose signing secret signed the request; 401 otherwise. */
export async function verifySlackRequest(pool: DatabasePool, masterKey: Buffer, s: Signed): Promise<SlackChannel> {
  const { timestamp, signature } = s;
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp) || typeof signature !== 'string') throw unauthorized();
  if (Math.abs(s.nowSeconds - Number(timestamp)) > MAX_SKEW_SECONDS) throw unauthorized();
  if (!UUID.test(s.channelId)) throw unauthorized();
  const channel = await createSlackApprovalQueries(pool).findChannel(s.channelId);
  if (!channel || channel.kind !== 'slack' || !channel.active) throw unauthorized();
  const { signingSecret } = JSON.parse(decrypt(masterKey, channel.secretsEncrypted)) as { signingSecret?: string };
  if (!signingSecret) throw unauthorized();
  const expected = Buffer.from(`v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${s.rawBody}`).digest('hex')}`);
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthorized();
  const attribute = channel.config.approverAttribute;
  return {
    id: channel.id,
    tenantId: channel.tenantId,
    environmentId: channel.environmentId,
    approverAttribute: typeof attribute === 'string' ? attribute : 'slackUserId',
  };
}
