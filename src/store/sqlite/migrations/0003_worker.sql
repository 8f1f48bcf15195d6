-- What the worker produces: incidents (D13), the canonical result of each processed event,
-- and the durable outbox of e-mails (D24). Everything hangs off events, so retention
-- (D22) removes an event with all it produced.

-- Lease expiries are counted apart from processing attempts (D25: 3 recoveries, then failed).
ALTER TABLE queue_items ADD COLUMN expiries INTEGER NOT NULL DEFAULT 0;

CREATE TABLE incidents (
  id                 TEXT PRIMARY KEY,
  identity           TEXT NOT NULL,
  starts_at          TEXT NOT NULL,
  alertname          TEXT NOT NULL,
  instance           TEXT NOT NULL,
  severity           TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
  firing_event_id    TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  resolved_event_id  TEXT REFERENCES events (id) ON DELETE SET NULL,
  opened_at          INTEGER NOT NULL,
  resolved_at        INTEGER,
  -- The diagnosis headline, once the firing event is diagnosed.
  branch             TEXT,
  rule_name          TEXT,
  category           TEXT,
  classification     TEXT,
  confidence         TEXT,
  UNIQUE (identity, starts_at)
);
CREATE INDEX incidents_identity_open ON incidents (identity, opened_at) WHERE status = 'open';
CREATE INDEX incidents_opened ON incidents (opened_at);
CREATE INDEX incidents_firing_event ON incidents (firing_event_id);
CREATE INDEX incidents_resolved_event ON incidents (resolved_event_id);

CREATE TABLE results (
  event_id     TEXT PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  incident_id  TEXT REFERENCES incidents (id) ON DELETE CASCADE,
  kind         TEXT NOT NULL CHECK (kind IN ('diagnosis', 'recovery', 'uncorrelated')),
  result       TEXT NOT NULL,          -- JSON: findings, evidence summary, rule versions
  created_at   INTEGER NOT NULL
);
CREATE INDEX results_incident ON results (incident_id);

CREATE TABLE outbox (
  id               INTEGER PRIMARY KEY,
  event_id         TEXT NOT NULL UNIQUE REFERENCES events (id) ON DELETE CASCADE,
  kind             TEXT NOT NULL CHECK (kind IN ('diagnosis', 'recovery')),
  message_id       TEXT NOT NULL,
  in_reply_to      TEXT,
  subject          TEXT NOT NULL,
  recipients       TEXT NOT NULL,      -- JSON array
  text_body        TEXT NOT NULL,
  html_body        TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER NOT NULL,
  last_error       TEXT,
  created_at       INTEGER NOT NULL,
  sent_at          INTEGER
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';
