// A provider's config and secrets checked against its kind's schemas, every wrong field named (`body.secrets.apiKey`).
import { emailConfigSchemas, emailSecretSchemas, type EmailProviderKind } from '../../lib/email/kinds.ts';
import { ApiError, type ErrorDetail } from '../errors.ts';
import { issueDetails } from '../common/issue-details.ts';

type Fields = Record<string, unknown>;

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
