// A kind's config or secrets checked by its zod schema, each issue as an error detail naming the field under
// `base` (`body.secrets.apiKey is required`, `body.config.extra is not a known field`).
import type { z } from 'zod';
import type { ErrorDetail } from '../errors.ts';

type Fields = Record<string, unknown>;

/** The issues of `error` (none when the input passed) as details under `base`; `input` tells a missing field from a wrong one. */
export function issueDetails(base: string, input: Fields, error: z.ZodError | undefined): ErrorDetail[] {
  return (error?.issues ?? []).flatMap((issue) => {
    const path = [base, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: `${path}.${key}`, message: 'is not a known field' }));
    const missing = issue.code === 'invalid_type' && issue.path.reduce<unknown>((v, k) => (v as Fields | undefined)?.[k as string], input) === undefined;
    const message = missing ? 'is required' : issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    return [{ path, message }];
  });
}
