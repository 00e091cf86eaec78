-- Every message the service sends through an environment's providers (sign-up codes, sign-in codes and links,
-- password links, invitations, elevate notices, SMS codes): one row per message, sent by its `message-send` process.
-- The rendered message (subject, text, HTML) is kept sealed with lib/crypto.ts encrypt() under MASTER_KEY only until
-- it is sent or given up, so a retry can resend it: it holds a code or a link, never stored in clear. Messages sent
-- by the log sender (no active provider of the channel) have no row.
CREATE TABLE messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms')),
  kind text NOT NULL,
  template text NOT NULL,
  recipient text NOT NULL,
  locale text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed', 'bounced')),
  -- The providers (kinds) to try, in order: the first is the one in use at queue time, the rest the failover.
  providers text[] NOT NULL CHECK (cardinality(providers) > 0),
  -- Delays before each attempt at one provider, in ms (MESSAGE_RETRY_SCHEDULE at queue time).
  retry_schedule_ms integer[] NOT NULL,
  provider text,
  provider_message_id text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  sealed_content text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  failed_at timestamptz,
  bounced_at timestamptz,
  CONSTRAINT messages__content_until_settled CHECK (status = 'queued' OR sealed_content IS NULL)
);
CREATE INDEX messages__environment_created ON messages (environment_id, created_at DESC, id DESC);
CREATE INDEX messages__queued ON messages (created_at) WHERE status = 'queued';
-- A bounce names the vendor's message id.
CREATE INDEX messages__provider_message ON messages (environment_id, provider, provider_message_id) WHERE provider_message_id IS NOT NULL;
