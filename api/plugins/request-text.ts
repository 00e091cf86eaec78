// Every string a request carries (body, query string, path parameters; values and field names) must be text
// Postgres can store: no U+0000 and no unpaired UTF-16 surrogate (a `\ud800` JSON escape). Checked once for
// every route, after parsing (JSON and form bodies) and before validation, so no schema has to remember it.
// Bodies nested deeper than any shape of the API are refused here too, before anything recurses into them. Text a
// route decodes itself (JSON inside a string field) goes through assertStorableText once decoded.
import fp from 'fastify-plugin';
import type { FastifyBodyParser, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, type ErrorDetail } from '../errors.ts';

export const MAX_NESTING = 32;
/** Enough to name the problem without echoing a huge body back. */
const MAX_DETAILS = 10;

/** What makes `text` unstorable, if anything. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'U+0000 (NUL)';
  if (!text.isWellFormed()) return 'an unpaired UTF-16 surrogate';
  return undefined;
}

/** A path segment for a field name: as is, or JSON-escaped when the name itself is the problem. */
const segment = (key: string) => (textProblem(key) ? JSON.stringify(key).slice(1, -1) : key);

/**
 * Whether every string below `value` (values and field names) is storable and no object or array is nested
 * `MAX_NESTING` deep, decided without building a path per string: nearly every request passes, and only one that does
 * not is walked again to name its problems. Recursion is bounded by the nesting limit.
 */
function storable(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return textProblem(value) === undefined;
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_NESTING) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!storable(item, depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (textProblem(key) !== undefined || !storable((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** The problems of the strings below `value`, each at its path (`body.config.url`); iterative, so depth cannot overflow. */
export function requestTextProblems(where: string, value: unknown): ErrorDetail[] {
  if (storable(value, 0)) return [];
  const details: ErrorDetail[] = [];
  const stack: { path: string; value: unknown; depth: number; top: string }[] = [{ path: where, value, depth: 0, top: where }];
  while (stack.length > 0 && details.length < MAX_DETAILS) {
    const { path, value: current, depth, top } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) details.push({ path, message: `must not contain ${problem}` });
    } else if (current !== null && typeof current === 'object') {
      if (depth >= MAX_NESTING) {
        details.push({ path: top, message: `is nested more than ${MAX_NESTING} levels deep` });
        break;
      }
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const childPath = `${path}.${segment(key)}`;
        const keyProblem = textProblem(key);
        if (keyProblem) details.push({ path: childPath, message: `is a field name containing ${keyProblem}` });
        stack.push({ path: childPath, value: child, depth: depth + 1, top: depth === 0 ? childPath : top });
      }
    }
  }
  return details.slice(0, MAX_DETAILS);
}

/**
 * The same check for text a route decodes itself (a JSON document sent as a string field, such as a connection's
 * `formPayload`): a 400 naming each unstorable string below `where`, with the route's error code.
 */
export function assertStorableText(where: string, value: unknown, code = 'request.invalid'): void {
  const details = requestTextProblems(where, value);
  if (details.length > 0) throw new ApiError(400, code, `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });
}

function check(request: FastifyRequest): ApiError | undefined {
  const details = requestTextProblems('params', request.params);
  details.push(...requestTextProblems('querystring', request.query));
  if (request.body !== undefined) details.push(...requestTextProblems('body', request.body));
  if (details.length === 0) return undefined;
  const shown = details.slice(0, MAX_DETAILS);
  return new ApiError(400, 'request.invalid', `Invalid request: ${shown.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details: shown });
}

export function registerRequestTextCheck(app: FastifyInstance) {
  // A callback hook, not an async one: this runs on every request, and most requests pass.
  app.addHook('preValidation', (request, _reply, done) => done(check(request)));
}

/**
 * The JSON body parser, except that an empty body is no body: clients send a JSON content type on bodiless requests
 * (Okta's SCIM DELETE, `POST …/deactivate`), which Fastify refuses (FST_ERR_CTP_EMPTY_JSON_BODY). A route that needs
 * a body still refuses its absence when it validates the body.
 */
export function emptyTolerantJsonParser(app: FastifyInstance): FastifyBodyParser<string> {
  const json = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => (body.trim() === '' ? done(null, undefined) : json(request, body, done));
}

export function registerJsonBodyParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, emptyTolerantJsonParser(app));
}

/** After both authentications: a request without a valid credential learns nothing about its body. */
export const requestTextPlugin = fp(
  async (app) => {
    registerJsonBodyParser(app);
    registerRequestTextCheck(app);
  },
  {
    name: 'request-text',
    fastify: '5.x',
    dependencies: ['errors', 'auth', 'environment-secret'],
  },
);
