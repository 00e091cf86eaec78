// Slack's interactivity endpoint for approval buttons: public (Slack signs each request with the app's signing secret),
// form-encoded with one `payload` field holding JSON. The raw body is kept by a parser of this route's own plugin: the
// signature covers the exact bytes Slack sent.
import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { errorResponses } from '../../../common/schemas.ts';
import { keepRawBody } from '../../../common/raw-body.ts';
import { invalidField } from '../../../errors.ts';
import type { App } from '../../../types.ts';
import { tags } from './policies-routes.ts';
import { BlockActions, type createSlackApprovalService } from './slack-service.ts';
import { verifySlackRequest, type SlackChannel } from './slack-verify.ts';

const FORM = 'application/x-www-form-urlencoded';
const channels = new WeakMap<FastifyRequest, SlackChannel>();

const Params = z.strictObject({ channelId: z.string().max(100).describe('The Slack notification channel whose signing secret signs the requests') });
const Body = z.strictObject({ payload: z.string().max(1_000_000).describe("Slack's `block_actions` payload, a JSON string") });

export function slackInteractivityRoutes(app: App, deps: { pool: DatabasePool; masterKey: Buffer; service: ReturnType<typeof createSlackApprovalService> }) {
  return app.register(async (plugin) => {
    const rawBodyOf = keepRawBody(plugin, FORM, (text) => Object.fromEntries(new URLSearchParams(text)));
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    scope.post('/v1/integrations/slack/interactivity/:channelId', {
      // Counted per channel (its signing secret) once verified, and failed signatures per address: never per address alone.
      config: { public: true, credentialParam: 'channelId' },
      // Before the body is validated: an unsigned request is a 401 whatever it holds.
      preValidation: async (request) => {
        const channel = await verifySlackRequest(deps.pool, deps.masterKey, {
          channelId: (request.params as { channelId: string }).channelId,
          timestamp: request.headers['x-slack-request-timestamp'],
          signature: request.headers['x-slack-signature'],
          rawBody: rawBodyOf(request),
          nowSeconds: Math.floor(Date.now() / 1000),
        });
        channels.set(request, channel);
      },
      schema: {
        tags,
        operationId: 'slackInteractivity',
        summary: 'Decide an access request from Slack',
        description:
          "The Interactivity Request URL of the Slack app behind a slack notification channel: Slack posts the Approve and Deny clicks of the elevate approval messages here. Signed with the channel's `signingSecret` " +
          '(`X-Slack-Signature`, `X-Slack-Request-Timestamp` within five minutes), else 401. The Slack user decides as the directory user whose `approverAttribute` attribute holds its Slack member id; ' +
          "the outcome, or the refusal (not linked, not an approver, self-approval, already decided), is posted to the action's `response_url`. Answers 200 at once.",
        consumes: [FORM],
        params: Params,
        body: Body,
        response: { 200: z.object({ ok: z.boolean() }).meta({ id: 'SlackInteractivityResponse' }), ...errorResponses() },
      },
      handler: async (request) => {
        let payload: unknown;
        try {
          payload = JSON.parse(request.body.payload);
        } catch {
          throw invalidField('body.payload', 'must be JSON');
        }
        const parsed = BlockActions.safeParse(payload);
        if (!parsed.success) throw invalidField(`body.payload.${parsed.error.issues[0]!.path.join('.')}`, parsed.error.issues[0]!.message);
        const origin = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id };
        await deps.service.handle(channels.get(request)!, parsed.data, origin, request.log);
        return { ok: true };
      },
    });
  });
}
