import { z } from 'zod';

export const ErrorResponse = z
  .object({
    error: z.string().describe('A human-readable sentence'),
    code: z.string().describe('Stable machine-readable code, `<resource>.<reason>`'),
    requestId: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'ErrorResponse' });

export const Probe = z.object({ ok: z.boolean() }).meta({ id: 'Probe' });

/** Error responses documented on every authenticated operation, plus the extra ones given. */
export function errorResponses(...statuses: number[]) {
  const all = [400, 401, 403, 429, 500, ...statuses];
  return Object.fromEntries([...new Set(all)].sort().map((s) => [s, ErrorResponse]));
}

export const nullableString = (max = 1000) => z.string().max(max).nullable();

const MetaStatus = z.object({ message: z.string().nullable(), code: z.number().nullable() }).meta({ id: 'MetaStatus' });
/** The optional `meta` envelope of management responses (SPEC "Generic shapes"). */
export const ManagementMeta = z.object({ ok: MetaStatus.nullable(), error: MetaStatus.nullable() }).meta({ id: 'ManagementMeta' });
