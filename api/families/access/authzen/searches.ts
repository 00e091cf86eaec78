// Subject, resource and action search: one page of what an evaluation would permit, with an opaque next_token.
// A search is logged as one entry: the searched kind (the endpoint), the given entities and the count found. The
// resource type's engine (./engines.ts) answers: RBAC in memory, FGA by list-users, list-objects or checks.
import { searchActions, searchResources, searchSubjects } from '../../../../lib/authz/search.ts';
import type { Entity, SearchPage, SearchResult } from '../../../../lib/authz/types.ts';
import { engineFor, searchFgaActions, searchFgaResources, searchFgaSubjects } from './engines.ts';
import type { Deciders } from './evaluations.ts';
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

type Found = SearchResult<{ type: string; id: string } | { name: string }>;

function byFga({ fga, model }: Deciders, kind: Kind, body: Given, page: SearchPage): Promise<Found> {
  const context = body.context ?? undefined;
  const subject = { type: body.subject!.type, id: body.subject!.id ?? '' };
  const resource = { type: body.resource!.type, id: body.resource!.id ?? '' };
  const action = body.action?.name ?? '';
  if (kind === 'subject') return searchFgaSubjects(fga, model.environmentId, { subjectType: subject.type, action, resource, context }, page);
  if (kind === 'resource') return searchFgaResources(fga, model.environmentId, { subject, action, resourceType: resource.type, context }, page);
  return searchFgaActions(fga, model.environmentId, { subject, resource, context }, page);
}

function byRbac({ model, within }: Deciders, kind: Kind, body: Given, page: SearchPage): Found {
  return within(() => {
    const context = body.context ? { context: body.context } : {};
    const subject = entity(body.subject!);
    const resource = entity(body.resource!);
    const action = { name: body.action?.name ?? '', ...(body.action?.properties ? { properties: body.action.properties } : {}) };
    if (kind === 'subject') return searchSubjects(model, { subject: { type: subject.type }, action, resource, ...context }, page);
    if (kind === 'resource') return searchResources(model, { subject, action, resource: { type: resource.type }, ...context }, page);
    return searchActions(model, { subject, resource, ...context }, page);
  });
}

export async function search(deciders: Deciders, kind: Kind, body: Given & Record<string, unknown>, at: DecisionContext) {
  const { offset, limit, next } = pageStart(`search/${kind}`, body);
  const started = process.hrtime.bigint();
  const page = { offset, limit };
  const engine = await engineFor(deciders.model, deciders.fga, body.resource!.type);
  const found = engine === 'fga' ? await byFga(deciders, kind, body, page) : byRbac(deciders, kind, body, page);
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
