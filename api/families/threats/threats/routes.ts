import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  CloseThreatBody,
  CreateThreatBody,
  EnvironmentScopeParams,
  ThreatAlertingBody,
  ThreatAlertingResponse,
  ThreatNoteBody,
  ThreatParams,
  ThreatResponse,
  ThreatsList,
  ThreatsQuery,
  TriageThreatBody,
} from './schemas.ts';
import type { ThreatService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Threats'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/threats';
const read = requires('threats:read');
const write = requires('threats:write');
const transitions = '409 `threat.invalid_transition` naming the current status when the threat is not in a state this applies to.';

export function threatRoutes(app: App, threats: ThreatService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listThreats',
      summary: 'List the threats of an environment',
      description:
        'Lists threats, last seen first, one page at a time, filtered by status, severity, category, assignee, subject, and `since` (last seen at or after) / `until` (first seen before).',
      security: read,
      params: EnvironmentScopeParams,
      querystring: ThreatsQuery,
      response: { 200: ThreatsList, ...errorResponses(404) },
    },
    handler: (r) => threats.list(callerOf(r, 'environment'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createThreat',
      summary: 'Record a threat by hand',
      description: 'Opens a threat of category `manual` with a severity, subject, summary and evidence. Detections open the other categories.',
      security: write,
      params: EnvironmentScopeParams,
      body: CreateThreatBody,
      response: { 201: ThreatResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send({ threat: await threats.create(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/alerting`, {
    schema: {
      tags,
      operationId: 'getThreatAlerting',
      summary: 'Get the threat alerting settings of an environment',
      description: 'Which severity is alerted and to which notification channels; an environment without settings alerts nothing (`channelIds` empty).',
      security: read,
      params: EnvironmentScopeParams,
      response: { 200: ThreatAlertingResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ alerting: await threats.alerting(callerOf(r, 'environment')) }),
  });
  app.put(`${base}/alerting`, {
    schema: {
      tags,
      operationId: 'setThreatAlerting',
      summary: 'Set the threat alerting settings of an environment',
      description:
        'A threat at or above `minSeverity` raises a `threat.alerted` event when it is opened, reopened or raised to that severity; it is delivered to `channelIds` ' +
        '(notification channels of the tenant for all its environments or this one), whatever event types they subscribe to. PagerDuty alerts carry the threat id as `dedup_key`. 404 for a channel the environment cannot reach.',
      security: write,
      params: EnvironmentScopeParams,
      body: ThreatAlertingBody,
      response: { 200: ThreatAlertingResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ alerting: await threats.setAlerting(callerOf(r, 'environment'), r.body) }),
  });
  app.get(`${base}/:threatId`, {
    schema: {
      tags,
      operationId: 'getThreat',
      summary: 'Get a threat',
      description: 'Returns one threat with its evidence, linked event ids, occurrences, notes and resolution.',
      security: read,
      params: ThreatParams,
      response: { 200: ThreatResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ threat: await threats.find(callerOf(r, 'environment'), r.params.threatId) }),
  });
  app.patch(`${base}/:threatId`, {
    schema: {
      tags,
      operationId: 'triageThreat',
      summary: 'Triage a threat: status (open ↔ investigating), severity, assignee',
      description: `Changes what is given; the assignee must be a directory user of the environment or an operator (400 otherwise). ${transitions}`,
      security: write,
      params: ThreatParams,
      body: TriageThreatBody,
      response: { 200: ThreatResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ threat: await threats.triage(callerOf(r, 'environment'), r.params.threatId, r.body) }),
  });
  app.post(`${base}/:threatId/notes`, {
    schema: {
      tags,
      operationId: 'addThreatNote',
      summary: 'Add a note to a threat',
      description: 'Appends a note by the caller; closed threats take notes too.',
      security: write,
      params: ThreatParams,
      body: ThreatNoteBody,
      response: { 201: ThreatResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => reply.status(201).send({ threat: await threats.note(callerOf(r, 'environment'), r.params.threatId, r.body.text) }),
  });
  for (const [verb, outcome, operationId, what] of [
    ['resolve', 'resolved', 'resolveThreat', 'Resolve a threat (it was real and is dealt with)'],
    ['dismiss', 'dismissed', 'dismissThreat', 'Dismiss a threat (a false positive or accepted risk)'],
  ] as const) {
    app.post(`${base}/:threatId/${verb}`, {
      schema: {
        tags,
        operationId,
        summary: what,
        description: `Closes an open or investigating threat with a reason; a new detection of the same key then opens a new threat. ${transitions}`,
        security: write,
        params: ThreatParams,
        body: CloseThreatBody,
        response: { 200: ThreatResponse, ...errorResponses(404, 409) },
      },
      handler: async (r) => ({ threat: await threats.close(callerOf(r, 'environment'), r.params.threatId, outcome, r.body.reason) }),
    });
  }
  app.post(`${base}/:threatId/reopen`, {
    schema: {
      tags,
      operationId: 'reopenThreat',
      summary: 'Reopen a resolved or dismissed threat',
      description: `Opens the threat again (status open, resolution cleared). 409 \`threat.already_open\` when a newer threat with the same key is open. ${transitions}`,
      security: write,
      params: ThreatParams,
      response: { 200: ThreatResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ threat: await threats.reopen(callerOf(r, 'environment'), r.params.threatId) }),
  });
}
