// A save's `config` and `secrets` checked against the kind's schemas, with 400s naming each field
// (`body.config.from`, `body.secrets.authToken`); secrets merged over the stored ones, so an update may omit them.
import { SMS_VENDORS } from '../../lib/sms/vendors/index.ts';
import type { SmsProviderKind } from '../../db/sms-providers/rows.ts';
import { ApiError } from '../errors.ts';
import { issueDetails } from '../common/issue-details.ts';

type Fields = Record<string, unknown>;
export const INVALID = 'sms_provider.invalid';

/** The checked config and the full secrets (given over stored); one 400 listing every wrong field. */
export function parseProviderFields(kind: SmsProviderKind, config: Fields, givenSecrets: Fields, storedSecrets: Fields) {
  const vendor = SMS_VENDORS[kind];
  const secretsInput = { ...storedSecrets, ...givenSecrets };
  const c = vendor.config.safeParse(config);
  const s = vendor.secrets.safeParse(secretsInput);
  const details = [
    ...(c.success ? [] : issueDetails('body.config', config, c.error)),
    ...(s.success ? [] : issueDetails('body.secrets', secretsInput, s.error)),
  ];
  if (details.length > 0 || !c.success || !s.success) {
    throw new ApiError(400, INVALID, `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details });
  }
  return { config: c.data, secrets: s.data as Fields };
}

const MIN_HINTABLE = 12;

/** A masked hint per secret: its last four characters when it is long enough to keep them secret. */
export const secretHints = (secrets: Fields): Record<string, string> =>
  Object.fromEntries(
    Object.entries(secrets)
      .filter(([, v]) => typeof v === 'string' && v !== '')
      .map(([k, v]) => [k, (v as string).length >= MIN_HINTABLE ? `…${(v as string).slice(-4)}` : '…']),
  );
