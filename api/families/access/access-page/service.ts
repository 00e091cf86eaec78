// What the page does: reads what the signed-in user sees, and carries its forms to the elevate services (the same
// rules, events, audit entries and processes as the API). A form's fields are checked with the API's own request
// schema, so a refusal names the same field the API would; the page shows it next to that field.
import { createHash } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { createAccessPageQueries } from '../../../../db/access/access-page/queries.ts';
import type { HeldGrant, OwnRequest, WaitingRequest } from '../../../../db/access/access-page/rows.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import { ApiError } from '../../../errors.ts';
import type { GrantService } from '../elevate/grants-service.ts';
import type { RequestService } from '../elevate/requests-service.ts';
import { ActivateBody, CreateRequestBody, DecideBody, RevokeBody } from '../elevate/schemas.ts';

export const UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const;
export type Unit = keyof typeof UNITS;

/** The request form as posted (every field a string). */
export interface RequestForm {
  policyId?: string | undefined;
  duration?: string | undefined;
  unit?: string | undefined;
  justification?: string | undefined;
  ticketId?: string | undefined;
}

/** A refusal as the page shows it: the message, and the field it names (`body.durationSeconds` → `duration`). */
export interface Refusal {
  message: string;
  field: string | null;
}

const FIELDS: Record<string, string> = { 'body.durationSeconds': 'duration', 'body.justification': 'justification', 'body.ticketId': 'ticketId' };

/** An ApiError (or a schema refusal) as the page shows it; anything else is not the user's to fix and is rethrown. */
export function refusalOf(error: unknown): Refusal {
  if (error instanceof z.ZodError) {
    const issue = error.issues[0]!;
    const path = `body.${issue.path.join('.')}`;
    return { message: `${FIELDS[path] ? '' : `${path}: `}${issue.message}`, field: FIELDS[path] ?? null };
  }
  if (!(error instanceof ApiError)) throw error;
  const detail = error.details?.[0];
  const field = detail ? (FIELDS[detail.path] ?? null) : null;
  return { message: field && detail ? detail.message : error.message, field };
}

const text = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** A digest of what the page shows that others change (states, waiting requests, holders): the poll compares it. */
export function versionOf({ own, waiting, held }: { own: readonly OwnRequest[]; waiting: readonly WaitingRequest[]; held: readonly HeldGrant[] }) {
  const states = [own.map((r) => [r.id, r.state, r.grantState]), waiting.map((r) => [r.id, r.approvals]), held.map((g) => [g.id, g.state, g.expiresAt])];
  return createHash('sha256').update(JSON.stringify(states)).digest('base64url').slice(0, 22);
}

export function createPageService(pool: DatabasePool, deps: { requests: RequestService; grants: GrantService }) {
  const { requests, grants } = deps;
  const view = async (environmentId: string, userId: string) => {
    const q = createAccessPageQueries(pool, environmentId);
    const [policies, own, approver, waiting, held] = await Promise.all([
      q.eligiblePolicies(userId),
      q.ownRequests(userId),
      q.approvesAny(userId),
      q.waitingFor(userId),
      q.heldUnder(userId),
    ]);
    return { policies, own, approver, waiting, held };
  };
  return {
    user: (environmentId: string, userId: string) => createAccessPageQueries(pool, environmentId).findUser(userId),
    view,
    /** A digest of what the page shows that others change (states, waiting requests, holders): the poll compares it. */
    version: async (environmentId: string, userId: string) => versionOf(await view(environmentId, userId)),

    request: (caller: EnvironmentCaller, form: RequestForm) => {
      const unit = UNITS[(form.unit ?? 'minutes') as Unit] ?? UNITS.minutes;
      const amount = Number(form.duration);
      const body = CreateRequestBody.parse({
        policyId: form.policyId,
        ...(text(form.duration) === undefined ? {} : { durationSeconds: Number.isFinite(amount) ? Math.round(amount * unit) : amount }),
        ...(text(form.justification) === undefined ? {} : { justification: text(form.justification) }),
        ...(text(form.ticketId) === undefined ? {} : { ticketId: text(form.ticketId) }),
      });
      return requests.create(caller, body);
    },
    cancel: (caller: EnvironmentCaller, id: string) => requests.cancel(caller, id),
    decide: (caller: EnvironmentCaller, id: string, decision: 'approve' | 'deny', reason: string | undefined) => {
      const body = DecideBody.parse(text(reason) === undefined ? {} : { comment: text(reason) });
      return decision === 'approve' ? requests.approve(caller, id, body) : requests.deny(caller, id, body);
    },
    activate: (caller: EnvironmentCaller, id: string) => grants.activate(caller, id, ActivateBody.parse({})),
    revoke: (caller: EnvironmentCaller, id: string, reason: string | undefined) =>
      grants.revoke(caller, id, RevokeBody.parse(text(reason) === undefined ? {} : { reason: text(reason) })),
  };
}

export type PageService = ReturnType<typeof createPageService>;
export type PageView = Awaited<ReturnType<PageService['view']>>;
