import { z } from 'zod';
import { nameProblem } from '../../lib/text.ts';

export const ErrorResponse = z
  .object({
    error: z.string().describe('A human-readable sentence'),
    code: z.string().describe('Stable machine-readable code, `<resource>.<reason>`'),
    requestId: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'ErrorResponse' });

export const Probe = z.object({ ok: z.boolean() }).meta({ id: 'Probe' });

export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Error responses documented on every authenticated operation, plus the extra ones given. */
export function errorResponses(...statuses: number[]) {
  const all = [400, 401, 403, 429, 500, ...statuses];
  return Object.fromEntries([...new Set(all)].sort().map((s) => [s, ErrorResponse]));
}

export const nullableString = (max = 1000) => z.string().max(max).nullable();

/**
 * A name, title or display name in a request: trimmed, not empty, at most `max` characters, and free of C0/C1
 * control characters, DEL, line and paragraph separators and bidirectional controls (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069). Free-text descriptions keep their newlines and do not use it.
 */
export const displayName = (max = 200) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .superRefine((value, ctx) => {
      const problem = nameProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

const MetaStatus = z.object({ message: z.string().nullable(), code: z.number().nullable() }).meta({ id: 'MetaStatus' });
/** The optional `meta` envelope of management responses (SPEC "Generic shapes"). */
export const ManagementMeta = z.object({ ok: MetaStatus.nullable(), error: MetaStatus.nullable() }).meta({ id: 'ManagementMeta' });
