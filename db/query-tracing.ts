// Postgres query spans (OpenTelemetry), added to the pool by db/pool.ts only when tracing is on: each query is a
// client span, a child of the span active where it was run (a request, a dispatcher step, an activity).
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Interceptor } from 'slonik';
import { tracer } from '../lib/telemetry.ts';

/** The statement's first words (`SELECT`, `INSERT`, `WITH`): a span name without values. */
const operation = (text: string) => /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';

export function queryTracing(): Interceptor {
  const spans = new Map<string, Span>();
  const end = (queryId: string, error?: Error) => {
    const span = spans.get(queryId);
    if (!span) return null;
    spans.delete(queryId);
    if (error) {
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    span.end();
    return null;
  };
  return {
    name: 'query-tracing',
    beforeQueryExecution: (queryContext, query) => {
      const span = tracer.startSpan(`pg ${operation(query.sql)}`, {
        kind: SpanKind.CLIENT,
        // The statement text has placeholders ($1) for every value: no data in it.
        attributes: { 'db.system.name': 'postgresql', 'db.query.text': query.sql.slice(0, 2000) },
      });
      spans.set(queryContext.queryId, span);
      return null;
    },
    afterQueryExecution: (queryContext) => end(queryContext.queryId),
    queryExecutionError: (queryContext, _query, error) => end(queryContext.queryId, error),
  };
}
