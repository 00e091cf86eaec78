// Queries of one environment's messages: every statement is bound to `environmentId`.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { MessageRecord, type MessageStatus } from './rows.ts';

export const messageColumns = sql.fragment`
  m.id, m.environment_id AS "environmentId", m.channel, m.kind, m.template, m.recipient, m.locale, m.status, m.providers,
  m.provider, m.provider_message_id AS "providerMessageId", m.attempts, m.last_error AS "lastError",
  m.created_at AS "createdAt", m.updated_at AS "updatedAt", m.sent_at AS "sentAt", m.failed_at AS "failedAt", m.bounced_at AS "bouncedAt"`;

/** What sending a message needs to know of its environment, read in one statement. */
const SendingContext = z.object({
  tenantId: z.uuid(),
  displayName: z.string().nullable(),
  logoUrl: z.string().nullable(),
  primaryColor: z.string().nullable(),
  defaultLocale: z.string().nullable(),
  /** Email providers to try: the active one first, then the other saved ones (the failover), by kind. */
  emailProviders: z.array(z.string()),
  /** Whether an email provider is active (without one, email goes through the log sender). */
  emailActive: z.boolean(),
  /** Active SMS providers by rank (ties by creation). */
  smsProviders: z.array(z.string()),
});
export type SendingContext = z.infer<typeof SendingContext>;

export interface NewMessage {
  channel: 'email' | 'sms';
  kind: string;
  template: string;
  recipient: string;
  locale: string;
  providers: string[];
  retryScheduleMs: number[];
  sealedContent: string;
}

export interface MessageFilter {
  status?: MessageStatus | undefined;
  kind?: string | undefined;
  recipient?: string | undefined;
}

const Total = z.object({ total: z.number() });

export function createMessageQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Null when the environment does not exist. */
    sendingContext: () =>
      db.maybeOne(sql.type(SendingContext)`
        SELECT e.tenant_id AS "tenantId", s.display_name AS "displayName", s.logo_url AS "logoUrl", s.primary_color AS "primaryColor",
          s.default_locale AS "defaultLocale",
          ARRAY(SELECT p.provider FROM email_providers p WHERE p.environment_id = e.id ORDER BY p.active DESC, p.provider) AS "emailProviders",
          EXISTS (SELECT 1 FROM email_providers p WHERE p.environment_id = e.id AND p.active) AS "emailActive",
          ARRAY(SELECT p.provider FROM environment_sms_providers p WHERE p.environment_id = e.id AND p.active
            ORDER BY p.rank, p.created_at, p.id) AS "smsProviders"
        FROM environments e LEFT JOIN sign_in_settings s ON s.environment_id = e.id
        WHERE e.id = ${environmentId}`),

    insert: (m: NewMessage) =>
      db.one(sql.type(MessageRecord)`
        INSERT INTO messages AS m (environment_id, channel, kind, template, recipient, locale, providers, retry_schedule_ms, sealed_content)
        VALUES (${environmentId}, ${m.channel}, ${m.kind}, ${m.template}, ${m.recipient}, ${m.locale}, ${sql.array(m.providers, 'text')},
          ${sql.array(m.retryScheduleMs, 'int4')}, ${m.sealedContent})
        RETURNING ${messageColumns}`),

    find: (id: string) =>
      db.maybeOne(sql.type(MessageRecord)`SELECT ${messageColumns} FROM messages m WHERE m.environment_id = ${environmentId} AND m.id = ${id}`),

    /** Newest first, with the total of the filtered list. */
    list: async (filter: MessageFilter, page: { limit: number; offset: number }) => {
      const filters = [
        sql.fragment` AND true`,
        ...(filter.status ? [sql.fragment` AND m.status = ${filter.status}`] : []),
        ...(filter.kind ? [sql.fragment` AND m.kind = ${filter.kind}`] : []),
        ...(filter.recipient ? [sql.fragment` AND lower(m.recipient) = ${filter.recipient.toLowerCase()}`] : []),
      ];
      const and = sql.join(filters, sql.fragment` `);
      const items = await db.any(sql.type(MessageRecord)`
        SELECT ${messageColumns} FROM messages m WHERE m.environment_id = ${environmentId}${and}
        ORDER BY m.created_at DESC, m.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
      const { total } = await db.one(sql.type(Total)`SELECT count(*)::int AS total FROM messages m WHERE m.environment_id = ${environmentId}${and}`);
      return { items: [...items], total };
    },

    /** Marks the message the vendor knows as `providerMessageId` bounced, once; null when none (or already bounced). */
    markBounced: (provider: string, providerMessageId: string, error: string) =>
      db.maybeOne(sql.type(MessageRecord)`
        UPDATE messages AS m SET status = 'bounced', bounced_at = now(), updated_at = now(), last_error = ${error}
        WHERE m.environment_id = ${environmentId} AND m.provider = ${provider} AND m.provider_message_id = ${providerMessageId}
          AND m.status = 'sent'
        RETURNING ${messageColumns}`),
  };
}
