// Routes whose caller signs the exact bytes it sent (Slack's interactivity, Stripe's webhooks): a parser registered
// in the route's own (encapsulated) plugin keeps the raw body beside the parsed one, for the signature check.
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Parses `contentType` with `parse` (a body it cannot parse becomes `{}`); answers the raw body of a request. */
export function keepRawBody(plugin: FastifyInstance, contentType: string, parse: (text: string) => unknown, options: { bodyLimit?: number } = {}) {
  const raw = new WeakMap<FastifyRequest, string>();
  if (plugin.hasContentTypeParser(contentType)) plugin.removeContentTypeParser(contentType);
  plugin.addContentTypeParser(contentType, { parseAs: 'string', ...options }, (request, body, done) => {
    raw.set(request, body as string);
    let parsed: unknown;
    try {
      parsed = parse(body as string);
    } catch {
      parsed = {};
    }
    done(null, parsed);
  });
  return (request: FastifyRequest) => raw.get(request) ?? '';
}
