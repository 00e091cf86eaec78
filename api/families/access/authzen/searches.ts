// Subject, resource and action search: one page of what an evaluation would permit, with an opaque next_token.
// A search is logged as one entry: the searched kind (the endpoint), the given entities and the count found.
import { searchActions, searchResources, searchSubjects } from '../../../../lib/authz/search.ts';
import type { AccessModel } from '../../../../lib/authz/compile.ts';
import type { Entity, SearchPage, SearchResult } from '../../../../lib/authz/types.ts';
import { pageStart } from './pages.ts';
import type { DecisionContext } from './requests.ts';

type Kind = 'subject' | 'resource' | 'action';
interface Given {
  subject?: { type: string; id?: string | undefined; properties?: Record<string, unknown> | null | undefined };
  action?: { name: string; properties?: Record<string, unknown> | null | undefined };
  resource?: { type: string; id?: string | undefined; properties?: Record<string, unknown> | null | undefined };
  context?: Record<string, unknown> | null | undefined;
}

const entity = (e: { type: string; id?: string | undefined; properties?: Record<string, unknown> | null | undefined }): Entity => ({
  type: e.type,
  id: e.id ?? '',
  ...(e.properties ? { properties: e.properties } : {}),
});

function run(model: AccessModel, kind: Kind, body: Given, page: SearchPage): SearchResult<{ type: string; id: string } | { name: string }> {
  const context = body.context ? { context: body.context } : {};
  const subject = entity(body.subject!);
  const resource = entity(body.resource!);
  const action = { name: body.action?.name ?? '', ...(body.action?.properties ? { properties: body.action.properties } : {}) };
  if (kind === 'subject') return searchSubjects(model, { subject: { type: subject.type }, action, resource, ...context }, page);
  if (kind === 'resource') return searchResources(model, { subject, action, resource: { type: resource.type }, ...context }, page);
  return searchActions(model, { subject, resource, ...context }, page);
}

export function search(model: AccessModel, kind: Kind, body: Given & Record<string, unknown>, at: DecisionContext) {
  const { offset, limit, next } = pageStart(`search/${kind}`, body);
  const started = process.hrtime.bigint();
  const found = run(model, kind, body, { offset, limit });
  at.log(`search/${kind}`, {
    subject: body.subject ? { type: body.subject.type, id: kind === 'subject' ? null : (body.subject.id ?? null) } : null,
    action: kind === 'action' ? null : (body.action?.name ?? null),
    resource: body.resource ? { type: body.resource.type, id: kind === 'resource' ? null : (body.resource.id ?? null) } : null,
    decision: found.results.length > 0,
    reason: { search: kind, count: found.results.length },
    durationMicros: Number((process.hrtime.bigint() - started) / 1000n),
  });
  return { page: { next_token: next(found.nextOffset), count: found.results.length }, results: found.results };
}
