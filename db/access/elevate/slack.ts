// What an approval from Slack reads: the channel the click came through (with its sealed secrets), the environment's
// tenant, and the directory user a Slack member id is linked to.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const SlackChannel = z.object({
  id: z.uuid(),
  tenantId: z.uuid(),
  environmentId: z.uuid().nullable(),
  kind: z.string(),
  active: z.boolean(),
  config: z.record(z.string(), z.unknown()),
  secretsEncrypted: z.string(),
});

export function createSlackApprovalQueries(db: CommonQueryMethods) {
  return {
    findChannel: (id: string) =>
      db.maybeOne(sql.type(SlackChannel)`
        SELECT id, tenant_id AS "tenantId", environment_id AS "environmentId", kind, active, config, secrets_encrypted AS "secretsEncrypted"
        FROM notification_channels WHERE id = ${id}`),

    tenantOfEnvironment: (environmentId: string) =>
      db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`SELECT tenant_id AS id FROM environments WHERE id = ${environmentId}`),

    /** The active directory users of the environment whose `attribute` is the Slack member id (one, unless misconfigured). */
    linkedUsers: (environmentId: string, attribute: string, slackUserId: string) =>
      db.anyFirst(sql.type(z.object({ id: z.uuid() }))`
        SELECT id FROM users WHERE environment_id = ${environmentId} AND active AND attributes->>${attribute} = ${slackUserId} LIMIT 2`),
  };
}
