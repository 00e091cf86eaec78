// The messages sent through an environment's providers: list and read (never the content), and Postmark's bounce webhook.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import type { App } from '../../../types.ts';
import {
  EnvironmentScopeParams,
  HookResponse,
  MessageListQuery,
  MessageParams,
  MessageResponse,
  MessagesList,
  PostmarkHookBody,
  PostmarkHookParams,
} from './schemas.ts';
import type { MessageService } from './service.ts';

const tags = ['Messages'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/messages';
const read = requires('messages:read');

export function messageRoutes(app: App, messages: MessageService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listEnvironmentMessages',
      summary: 'List the messages sent through the environment’s providers',
      description:
        'Newest first: each message sent through an email or SMS provider (codes, links, invitations, notices) with its status ' +
        '(`queued`, `sent`, `failed`, `bounced`), the provider that sent it and the vendor’s message id, its attempts and last error. ' +
        'Never the content. Messages sent while no provider of the channel was active went to the log sender and are not listed.',
      security: read,
      params: EnvironmentScopeParams,
      querystring: MessageListQuery,
      response: { 200: MessagesList, ...errorResponses(404) },
    },
    handler: (r) => messages.list(callerOf(r, 'environment'), r.query),
  });
  app.get(`${base}/:messageId`, {
    schema: {
      tags,
      operationId: 'getEnvironmentMessage',
      summary: 'Read one message’s record',
      description: 'The message’s record (never its content); 404 `message.not_found` when the environment has no such message.',
      security: read,
      params: MessageParams,
      response: { 200: MessageResponse, ...errorResponses(404) },
    },
    handler: (r) => messages.get(callerOf(r, 'environment'), r.params.messageId),
  });
  app.post('/v1/hooks/email/postmark/:environment', {
    config: { public: true, credentialParam: 'environment' },
    schema: {
      tags,
      operationId: 'postmarkBounceWebhook',
      summary: 'Postmark’s bounce webhook',
      description:
        'The bounce webhook URL of the environment’s Postmark server: `https://postmark:{serverToken}@<host>/v1/hooks/email/postmark/{environment}` (the environment id) ' +
        '(Basic auth, user `postmark`, password the server token saved in the Postmark provider; 401 otherwise). A `Bounce` record marks the ' +
        'message Postmark knows by `MessageID` `bounced` (`message.bounced`); other records are acknowledged and ignored.',
      params: PostmarkHookParams,
      body: PostmarkHookBody,
      response: { 200: HookResponse, ...errorResponses(401) },
    },
    handler: (r) => messages.postmarkBounce(r.params.environment, r.headers.authorization, r.body),
  });
}
