-- The service's schema on PostgreSQL: the tables of the SQLite adapter after its migration
-- 0007, in PostgreSQL's types (docs/design.md, "Storage"). Times are epoch milliseconds
-- (BIGINT), as on SQLite, so both adapters compare the same numbers.

CREATE TABLE incidents (
  id                  TEXT PRIMARY KEY,
  identity            TEXT NOT NULL,
  fingerprint         TEXT NOT NULL,
  starts_at           BIGINT NOT NULL,
  alertname           TEXT NOT NULL,
  instance            TEXT NOT NULL,
  severity            TEXT NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'superseded')),
  fired               SMALLINT NOT NULL DEFAULT 0,
  fired_late          SMALLINT NOT NULL DEFAULT 0,
  refires             INTEGER NOT NULL DEFAULT 0,
  firing_event_id     TEXT,
  resolved_event_id   TEXT,
  last_mail_event_id  TEXT,
  superseded_by       TEXT,
  opened_at           BIGINT NOT NULL,
  ended_at            BIGINT,
  closed_at           BIGINT,
  branch              TEXT,
  rule_name           TEXT,
  category            TEXT,
  classification      TEXT,
  confidence          TEXT,
  start_believed      SMALLINT NOT NULL DEFAULT 1,
  last_heard_at       BIGINT,
  UNIQUE (identity, starts_at)
);
-- At most one open occurrence per alert, whichever replica files it.
CREATE UNIQUE INDEX incidents_one_open ON incidents (identity) WHERE status = 'open';
CREATE INDEX incidents_opened ON incidents (opened_at);
CREATE INDEX incidents_last_heard ON incidents (last_heard_at);

CREATE TABLE events (
  id              TEXT PRIMARY KEY,
  identity        TEXT NOT NULL,
  fingerprint     TEXT,
  status          TEXT NOT NULL CHECK (status IN ('firing', 'resolved')),
  starts_at       TEXT NOT NULL,
  ends_at         TEXT,
  starts_ms       BIGINT,
  ends_ms         BIGINT,
  alertname       TEXT NOT NULL,
  instance        TEXT NOT NULL,
  severity        TEXT NOT NULL,
  alert           TEXT NOT NULL,
  receiver        TEXT NOT NULL,
  group_key       TEXT NOT NULL,
  principal       TEXT NOT NULL,
  received_at     BIGINT NOT NULL,
  incident_id     TEXT REFERENCES incidents (id) ON DELETE CASCADE,
  transition      TEXT,
  after_event_id  TEXT
);
CREATE INDEX events_incident ON events (incident_id, received_at);
CREATE INDEX events_received_at ON events (received_at);

CREATE TABLE queue_items (
  id            BIGSERIAL PRIMARY KEY,
  event_id      TEXT NOT NULL UNIQUE REFERENCES events (id) ON DELETE CASCADE,
  status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'done', 'failed')),
  attempts      INTEGER NOT NULL DEFAULT 0,
  expiries      INTEGER NOT NULL DEFAULT 0,
  available_at  BIGINT NOT NULL,
  lease_token   TEXT,
  locked_until  BIGINT,
  last_error    TEXT,
  created_at    BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL
);
CREATE INDEX queue_items_ready ON queue_items (available_at, id) WHERE status = 'queued';
CREATE INDEX queue_items_leased ON queue_items (locked_until) WHERE status = 'processing';

CREATE TABLE results (
  event_id     TEXT PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  incident_id  TEXT REFERENCES incidents (id) ON DELETE CASCADE,
  kind         TEXT NOT NULL CHECK (kind IN ('diagnosis', 'recovery', 'uncorrelated')),
  result       TEXT NOT NULL,
  created_at   BIGINT NOT NULL
);
CREATE INDEX results_incident ON results (incident_id);

CREATE TABLE outbox (
  id               BIGSERIAL PRIMARY KEY,
  event_id         TEXT NOT NULL UNIQUE REFERENCES events (id) ON DELETE CASCADE,
  kind             TEXT NOT NULL CHECK (kind IN ('diagnosis', 'refire', 'recovery')),
  after_event_id   TEXT,
  message_id       TEXT NOT NULL,
  in_reply_to      TEXT,
  subject          TEXT NOT NULL,
  recipients       TEXT NOT NULL,
  text_body        TEXT NOT NULL,
  html_body        TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  BIGINT NOT NULL,
  last_error       TEXT,
  created_at       BIGINT NOT NULL,
  sent_at          BIGINT,
  -- The replica sending it: its outcome is recorded only under this claim (a fencing token);
  -- once the claim expires (a replica died mid-send) another re-sends the same message.
  claim_token      TEXT,
  claimed_until    BIGINT
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX outbox_after ON outbox (after_event_id) WHERE after_event_id IS NOT NULL;

CREATE TABLE rules (
  id                   BIGSERIAL PRIMARY KEY,
  rule_id              TEXT,
  branch               TEXT NOT NULL UNIQUE,
  rule_name            TEXT NOT NULL UNIQUE,
  category             TEXT NOT NULL,
  target_source        TEXT NOT NULL,
  pattern              TEXT NOT NULL UNIQUE,
  assessment           TEXT NOT NULL,
  classification       TEXT NOT NULL CHECK (classification IN ('confirmed_cause', 'probable_cause')),
  confidence           TEXT NOT NULL CHECK (confidence IN ('high', 'medium')),
  recommended_actions  TEXT NOT NULL,
  created_by           TEXT NOT NULL,
  principal            TEXT NOT NULL,
  created_at           TEXT NOT NULL,
  priority             INTEGER CHECK (priority BETWEEN 1 AND 100)
);
-- Rules are append-only, here as on SQLite: the database refuses, whatever the code does.
CREATE FUNCTION rules_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'rules are append-only';
END $$;
CREATE TRIGGER rules_append_only BEFORE UPDATE OR DELETE ON rules
  FOR EACH ROW EXECUTE FUNCTION rules_append_only();
-- Names conflict after NFKC normalisation and case folding, as the rules service compares
-- them: here the database holds it across replicas registering at once.
CREATE UNIQUE INDEX rules_name_folded ON rules (lower(normalize(rule_name, NFKC)));

-- Each live replica, as it describes itself (docs/operations.md, "Replicas on PostgreSQL"):
-- a replica whose version, rule catalogue or inventory differs from the others would
-- diagnose the same alert differently.
CREATE TABLE replicas (
  id             TEXT PRIMARY KEY,
  host           TEXT NOT NULL,
  version        TEXT NOT NULL,
  catalogue      TEXT NOT NULL,
  inventory      TEXT NOT NULL,
  started_at     BIGINT NOT NULL,
  heartbeat_at   BIGINT NOT NULL
);
