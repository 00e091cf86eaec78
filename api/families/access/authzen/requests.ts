// What every AuthZEN request shares: its environment's model, who asked (for the decision log), the 400 of a body
// that a second, stricter look finds invalid.
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError } from '../../../errors.ts';
import { environmentSecretOf } from '../../../plugins/environment-secret.ts';
import type { DecisionEndpoint, DecisionRecord } from '../../../../db/access/authzen/decisions.ts';
import type { DecisionLog } from './decision-log.ts';

type Logged = Omit<DecisionRecord, 'environmentId' | 'decidedAt' | 'endpoint' | 'requestId' | 'apiSecretId' | 'sampleRate'>;

export interface DecisionContext {
  environmentId: string;
  log(endpoint: DecisionEndpoint, entry: Logged): void;
}

export function decisionContext(request: FastifyRequest, log: DecisionLog): DecisionContext {
  const secret = environmentSecretOf(request);
  const requestId = typeof request.headers['x-request-id'] === 'string' ? request.headers['x-request-id'].slice(0, 200) : request.id;
  return {
    environmentId: secret.environmentId,
    log: (endpoint, entry) =>
      log.record({ ...entry, environmentId: secret.environmentId, decidedAt: new Date(), endpoint, requestId, apiSecretId: secret.secretId }),
  };
}

/** A 400 in the shape of a schema validation failure. */
export function invalidBody(error: z.ZodError): ApiError {
  const details = error.issues.map((i) => ({ path: ['body', ...i.path].join('.'), message: i.message }));
  return new ApiError(400, 'request.invalid', `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });
}
