// Shapes of widget token issuance (management API, tag Widgets).
import { z } from 'zod';
import { WIDGET_KINDS, WidgetToken } from '../../../../db/widgets/tokens/rows.ts';
import { pageOf, PageQuery } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { EnvironmentScopeParams, WidgetToken };

export const DEFAULT_LIFETIME_MINUTES = 5;
export const MAX_LIFETIME_MINUTES = 60;

const isOrigin = (value: string) => {
  const url = URL.parse(value);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
};

const Origin = z
  .string()
  .max(2048)
  .refine(isOrigin, 'must be an exact origin: scheme://host[:port], http or https, no path, no trailing slash')
  .describe('An exact origin, e.g. https://app.example.com');

export const IssueWidgetTokenBody = z
  .strictObject({
    kind: z.enum(WIDGET_KINDS).describe('The widget the token is for'),
    userId: z.uuid().describe('A directory user of the environment, active: the widget acts as this user'),
    scopes: z
      .array(z.string())
      .min(1, 'must not be empty')
      .max(10)
      .optional()
      .describe('Scopes of the kind (docs/widgets.md lists them); every scope of the kind when absent. `x:write` implies `x:read`'),
    origins: z.array(Origin).min(1, 'must list at least one origin').max(10, 'must list at most 10 origins').describe('Where the widget may call from (CORS)'),
    lifetimeMinutes: z
      .number()
      .int()
      .min(1, 'must be at least 1')
      .max(MAX_LIFETIME_MINUTES, `must be at most ${MAX_LIFETIME_MINUTES}`)
      .optional()
      .describe(`How long the token lasts; ${DEFAULT_LIFETIME_MINUTES} minutes when absent`),
    organizationId: z
      .uuid()
      .optional()
      .describe('Required for organization_members and audit_log (an organization of the tenant that the caller belongs to); refused for the other kinds'),
  })
  .meta({ id: 'IssueWidgetTokenRequest' });
export type IssueWidgetTokenBody = z.infer<typeof IssueWidgetTokenBody>;

export const WidgetTokenParams = EnvironmentScopeParams.extend({ tokenId: z.uuid() });

export const WidgetTokensQuery = PageQuery.extend({
  userId: z.uuid().optional().describe('Tokens issued for this user'),
  kind: z.enum(WIDGET_KINDS).optional(),
});
export type WidgetTokensQuery = z.infer<typeof WidgetTokensQuery>;

export const WidgetTokenResponse = z.object({ widgetToken: WidgetToken }).meta({ id: 'WidgetTokenResponse' });
export const IssuedWidgetTokenResponse = z
  .object({
    widgetToken: WidgetToken,
    token: z.string().describe('The widget token (a JWT), shown only in this response: give it to the widget, never store it'),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int().describe('Seconds until the token expires'),
  })
  .meta({ id: 'IssuedWidgetTokenResponse' });
export const WidgetTokensList = pageOf('widgetTokens', WidgetToken).meta({ id: 'WidgetTokensList' });
