// The request span (OpenTelemetry), hooked in by buildApp only when tracing is on (lib/telemetry.ts): named by
// the route template (never the raw path), a child of the caller's `traceparent` when it sends one, and active
// for the whole request so query spans and the events it writes (their trace_context) hang under it.
import { context, propagation, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tracer } from '../lib/telemetry.ts';

const spans = new WeakMap<FastifyRequest, Span>();

export function addRequestSpans(app: FastifyInstance) {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route, 'iam.request_id': request.id } },
      parent,
    );
    spans.set(request, span);
    // The rest of the request runs from here, in the span's context.
    context.with(trace.setSpan(parent, span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      const params = (request.params ?? {}) as Record<string, unknown>;
      for (const key of ['tenantId', 'organizationId', 'environmentId'] as const) {
        if (typeof params[key] === 'string') span.setAttribute(`iam.${key.replace(/Id$/, '')}_id`.toLowerCase(), params[key]);
      }
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
