// An environment's add-on as the API shows it: config, and secrets only as hints.
import { z } from 'zod';
import { isoTimestamp, uuid } from '../shared/rows.ts';

/** Every add-on kind and its category (at most one active add-on per category and environment). */
export const ADD_ON_KINDS = {
  turnstile: 'bot_challenge',
  hcaptcha: 'bot_challenge',
  recaptcha: 'bot_challenge',
  segment: 'customer_data',
  analytics: 'analytics',
  stripe: 'payments',
} as const;
export type AddOnKind = keyof typeof ADD_ON_KINDS;
export type AddOnCategory = (typeof ADD_ON_KINDS)[AddOnKind];
export const ADD_ON_KIND_LIST = Object.keys(ADD_ON_KINDS) as [AddOnKind, ...AddOnKind[]];
const ADD_ON_CATEGORY_LIST = [...new Set(Object.values(ADD_ON_KINDS))] as [AddOnCategory, ...AddOnCategory[]];

export const EnvironmentAddOn = z
  .object({
    id: uuid,
    environmentId: uuid,
    kind: z.enum(ADD_ON_KIND_LIST),
    category: z.enum(ADD_ON_CATEGORY_LIST).describe('What the add-on does; at most one add-on of a category is active'),
    active: z
      .boolean()
      .describe(
        'Whether the environment uses this add-on (for bot_challenge: the challenge the sign-in pages show; for customer_data and analytics: events are forwarded)',
      ),
    config: z.record(z.string(), z.unknown()),
    secretHints: z.record(z.string(), z.string()).describe('Masked hints of the secrets (`…wxyz`); the secrets are never returned'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'EnvironmentAddOn' });
export type EnvironmentAddOn = z.infer<typeof EnvironmentAddOn>;
