// An environment's email provider as the API shows it (SPEC EnvironmentEmailProvider): secrets only as hints.
import { z } from 'zod';
import { isoTimestamp, uuid } from '../shared/rows.ts';
import { EMAIL_PROVIDER_KINDS } from '../../lib/email/kinds.ts';

export const EnvironmentEmailProvider = z
  .object({
    id: uuid,
    environmentId: uuid,
    provider: z.enum(EMAIL_PROVIDER_KINDS),
    active: z.boolean().describe('Whether messages of the environment go through this provider (at most one is active)'),
    config: z.record(z.string(), z.unknown()),
    secretHints: z.record(z.string(), z.string()).describe('Masked hints of the secrets (`…wxyz`); the secrets are never returned'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'EnvironmentEmailProvider' });
export type EnvironmentEmailProvider = z.infer<typeof EnvironmentEmailProvider>;
