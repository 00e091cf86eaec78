// What a trust-store entry's subject may be, per kind: a SPIFFE ID (any kind), an MCP server's http(s) URL
// (mcp_server), or a client id (agent, workload). At most 2048 characters, never a control or bidi character.
import { nameProblem } from '../../../../lib/text.ts';

export const MAX_SUBJECT = 2048;

// SPIFFE ID (spiffe.io, "SPIFFE-ID" §2): a lowercase trust domain, then path segments of letters, digits, . - _,
// no empty, `.` or `..` segment, no trailing slash, no query or fragment.
const SPIFFE = /^spiffe:\/\/[a-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

const isSpiffeId = (subject: string) => SPIFFE.test(subject) && !/\/\.{1,2}(\/|$)/.test(subject);

/** An http(s) URL an MCP client can connect to: no credentials, no fragment. */
function httpUrlProblem(subject: string): string | undefined {
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    return 'must be an http(s) URL or a SPIFFE ID for an mcp_server';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL or a SPIFFE ID for an mcp_server';
  if (url.username || url.password) return 'must not hold credentials';
  if (url.hash) return 'must not have a fragment';
  return undefined;
}

export const isHttpUrl = (subject: string) => /^https?:\/\//i.test(subject) && httpUrlProblem(subject) === undefined;

/** Why `subject` cannot name an entry of `kind`, or undefined. */
export function subjectProblem(kind: string, subject: string): string | undefined {
  if (subject.length === 0) return 'must not be empty';
  if (subject.length > MAX_SUBJECT) return `must be at most ${MAX_SUBJECT} characters`;
  const unsafe = nameProblem(subject);
  if (unsafe) return unsafe;
  if (/\s/.test(subject)) return 'must not contain whitespace';
  if (subject.toLowerCase().startsWith('spiffe:')) return isSpiffeId(subject) ? undefined : 'must be a valid SPIFFE ID (spiffe://<trust domain>/<path>)';
  if (kind === 'mcp_server') return httpUrlProblem(subject);
  return undefined;
}
