// Whether the sign-in pages may text codes in an environment: the MFA settings' `smsSecondFactor`, and the countries
// its active SMS providers may send to (a provider without `allowedCountries` sends anywhere), in one statement.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Row = z.object({ on: z.boolean(), lists: z.array(z.array(z.string()).nullable()) });

export interface SmsAvailability {
  /** `smsSecondFactor` is on and a provider is active. */
  on: boolean;
  /** The countries (ISO 3166 alpha-2) some active provider may text; null: any. */
  countries: Set<string> | null;
}

export async function smsAvailabilityOf(db: CommonQueryMethods, environmentId: string): Promise<SmsAvailability> {
  const row = await db.one(sql.type(Row)`
    SELECT coalesce((SELECT sms_second_factor FROM mfa_settings WHERE environment_id = ${environmentId}), false) AS on,
      coalesce((SELECT json_agg(config->'allowedCountries') FROM environment_sms_providers WHERE environment_id = ${environmentId} AND active),
        '[]'::json) AS lists`);
  if (!row.on || row.lists.length === 0) return { on: false, countries: null };
  if (row.lists.some((l) => l === null)) return { on: true, countries: null };
  return { on: true, countries: new Set(row.lists.flatMap((l) => l ?? [])) };
}
