-- Issue 22: the request rate limits (per principal or address, per environment credential, failed authentications,
-- wrong current passwords) counted across every API instance of the database.
--
-- rate_limit_windows: one fixed window per limiter key (`req:p:…`, `cred:api_secret:…`, `authfail:…`, …), from the
-- key's first request, on Postgres's clock so every instance agrees. Instances count locally and add their deltas in
-- one batched upsert every RATE_LIMIT_SYNC_INTERVAL_MS (api/rate-limits/), which answers each key's count in all.
-- Counters are throw-away (a lost one only forgets some requests of one window), so the table is UNLOGGED: no WAL
-- on the sync's path, and a crash empties it. The sync deletes ended windows in short statements.
CREATE UNLOGGED TABLE rate_limit_windows (
  key text PRIMARY KEY,
  window_ends_at timestamptz NOT NULL,
  count bigint NOT NULL
);
CREATE INDEX rate_limit_windows__window_ends_at ON rate_limit_windows (window_ends_at);
