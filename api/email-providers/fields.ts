// A provider's config and secrets checked against its kind's schemas, every wrong field named (`body.secrets.apiKey`).
import type { z } from 'zod';
import { emailConfigSchemas, emailSecretSchemas, type EmailProviderKind } from '../../lib/email/kinds.ts';
import { ApiError, type ErrorDetail } from '../errors.ts';

type Fields = Record<string, unknown>;

function issueDetails(base: string, input: Fields, error: z.ZodError | undefined): ErrorDetail[] {
  return (error?.issues ?? []).flatMap((issue) => {
    const path = [base, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: `${path}.${key}`, message: 'is not a known field' }));
    const missing = issue.code === 'invalid_type' && issue.path.reduce<unknown>((v, k) => (v as Fields | undefined)?.[k as string], input) === undefined;
    return [{ path, message: missing ? 'is required' : issue.message }];
  });
}

export const invalidProvider = (details: ErrorDetail[]) =>
  new ApiError(400, 'email_provider.invalid', `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });

/** The kind's parsed config and secrets; a 400 `email_provider.invalid` naming every wrong field otherwise. */
export function parseProviderFields(kind: EmailProviderKind, config: Fields, secrets: Fields) {
  const c = emailConfigSchemas[kind].safeParse(config);
  const s = emailSecretSchemas[kind].safeParse(secrets);
  const details = [...issueDetails('body.config', config, c.error), ...issueDetails('body.secrets', secrets, s.error)];
  if (kind === 'smtp' && c.data && s.data && (c.data as Fields).dkim && !(s.data as Fields).dkimPrivateKey)
    details.push({ path: 'body.secrets.dkimPrivateKey', message: 'is required with config.dkim' });
  if (details.length) throw invalidProvider(details);
  return { config: c.data as Fields, secrets: s.data as Fields };
}
