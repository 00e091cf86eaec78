// Deciding an access request from a Slack approval button: the Slack member is mapped to a directory user of the
// request's environment (the channel's `approverAttribute`), who decides through decideRequest like an API caller.
// Whatever happens is told to the Slack user through the action's `response_url`, after the commit: the original
// message is replaced once the request is settled, refusals are ephemeral. A failure to tell never undoes a decision.
import type { FastifyBaseLogger } from 'fastify';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { createSlackApprovalQueries } from '../../../../db/access/elevate/slack.ts';
import type { RequestOrigin } from '../../../../db/shared/changes.ts';
import { APPROVE_ACTION, DENY_ACTION, parseApprovalValue } from '../../../../lib/notifications/formats/slack-approval.ts';
import { postOutbound } from '../../../../lib/outbound/http-client.ts';
import { ApiError, invalidField } from '../../../errors.ts';
import { decideRequest } from './decide.ts';
import { unauthorized, type SlackChannel } from './slack-verify.ts';

/** The part of Slack's `block_actions` payload read here; Slack sends much more. */
export const BlockActions = z.looseObject({
  type: z.literal('block_actions'),
  user: z.looseObject({ id: z.string().regex(/^[A-Z0-9]{1,32}$/i, 'must be a Slack member id') }),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().optional() })).min(1),
  response_url: z.url({ protocol: /^https?$/ }).max(2048),
  message: z.looseObject({ blocks: z.array(z.looseObject({ type: z.string() })).optional() }).optional(),
});
type BlockActions = z.infer<typeof BlockActions>;

export interface SlackApprovalDeps {
  pool: DatabasePool;
  allowPrivateNetworkTargets: boolean;
  timeoutMs: number;
}

type Reply = Record<string, unknown>;
const ephemeral = (text: string): Reply => ({ response_type: 'ephemeral', replace_original: false, text });

export function createSlackApprovalService(deps: SlackApprovalDeps) {
  const { pool } = deps;

  /** Decides and returns what to post to `response_url` (nothing for an action that is not an approval button). */
  async function decide(channel: SlackChannel, payload: BlockActions, origin: RequestOrigin): Promise<Reply | null> {
    const action = payload.actions.find((a) => a.action_id === APPROVE_ACTION || a.action_id === DENY_ACTION);
    if (!action) return null;
    const target = parseApprovalValue(action.value ?? '');
    if (!target) throw invalidField('body.payload.actions[0].value', 'must name an access request as `<environmentId>:<requestId>`');
    const queries = createSlackApprovalQueries(pool);
    // A channel only decides requests of its own tenant (and environment, when it is bound to one).
    if ((await queries.tenantOfEnvironment(target.environmentId)) !== channel.tenantId) throw unauthorized();
    if (channel.environmentId !== null && channel.environmentId !== target.environmentId) throw unauthorized();
    const slackUser = payload.user.id;
    const linked = await queries.linkedUsers(target.environmentId, channel.approverAttribute, slackUser);
    if (linked.length > 1) {
      return ephemeral(
        `Your Slack member id \`${slackUser}\` is linked to more than one directory user: ask an administrator to fix \`${channel.approverAttribute}\`.`,
      );
    }
    if (linked.length === 0) {
      return ephemeral(
        `Your Slack account is not linked to a directory user: ask an administrator to set the \`${channel.approverAttribute}\` attribute of your user to \`${slackUser}\`.`,
      );
    }
    const decision = action.action_id === APPROVE_ACTION ? 'approve' : 'deny';
    try {
      const { request } = await decideRequest(
        pool,
        { actor: { type: 'user', id: linked[0]! }, origin, organizationId: null },
        { ...target, approverUserId: linked[0]!, decision, comment: 'via Slack' },
      );
      if (request.state === 'pending') {
        const approvals = request.decisions.filter((d) => d.decision === 'approve').length;
        return ephemeral(`Your approval is recorded (${approvals} so far); the request needs more approvals.`);
      }
      const verb = request.state === 'approved' ? 'Approved' : 'Denied';
      const kept = (payload.message?.blocks ?? []).filter((block) => block.type !== 'actions');
      const outcome = `*${verb}* by <@${slackUser}>: the request is ${request.state}.`;
      return { replace_original: true, text: outcome, blocks: [...kept, { type: 'section', text: { type: 'mrkdwn', text: outcome } }] };
    } catch (error) {
      if (error instanceof ApiError && [403, 404, 409].includes(error.statusCode)) return ephemeral(`Not decided: ${error.message}`);
      throw error;
    }
  }

  return {
    /** Decides; the reply to Slack goes out after the commit, without delaying the answer to Slack. */
    handle: async (channel: SlackChannel, payload: BlockActions, origin: RequestOrigin, log: FastifyBaseLogger) => {
      const reply = await decide(channel, payload, origin);
      if (!reply) return;
      const send = async () => {
        const options = { timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivateNetworkTargets };
        const result = await postOutbound(payload.response_url, JSON.stringify(reply), { 'Content-Type': 'application/json' }, options);
        if (!result.ok) log.warn({ channelId: channel.id, statusCode: result.statusCode, error: result.error }, 'Slack response_url update failed');
      };
      void send().catch((error: unknown) => log.warn({ channelId: channel.id, err: error }, 'Slack response_url update failed'));
    },
  };
}
