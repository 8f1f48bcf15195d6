-- migrate: foreign_keys=off
-- Issue 29 (docs/design.md, "Incidents", "Expiry"): an open occurrence no longer heard and never
-- resolved is closed as 'expired' after DIAG_INCIDENT_EXPIRY_HOURS. SQLite cannot change a
-- CHECK in place: the table is rebuilt with the same columns, rows and indexes.

CREATE TABLE incidents_v8 (
  id                  TEXT PRIMARY KEY,
  identity            TEXT NOT NULL,
  fingerprint         TEXT NOT NULL,          -- Alertmanager's fingerprint of the labels, computed here
  starts_at           INTEGER NOT NULL,       -- epoch milliseconds
  alertname           TEXT NOT NULL,
  instance            TEXT NOT NULL,
  severity            TEXT NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'superseded', 'expired')),
  fired               INTEGER NOT NULL DEFAULT 0,  -- a firing notification was recorded
  fired_late          INTEGER NOT NULL DEFAULT 0,  -- its first firing came after it had ended
  refires             INTEGER NOT NULL DEFAULT 0,
  firing_event_id     TEXT,                   -- its first firing: the diagnosis report
  resolved_event_id   TEXT,                   -- the resolution that closed it
  last_mail_event_id  TEXT,                   -- the event whose mail the next one follows
  superseded_by       TEXT,                   -- the incident whose start ended this one
  opened_at           INTEGER NOT NULL,       -- when the service first heard of it
  ended_at            INTEGER,                -- endsAt of its resolution, the start that superseded it, or when it was last heard (expired)
  closed_at           INTEGER,                -- when the service recorded that end
  branch              TEXT,
  rule_name           TEXT,
  category            TEXT,
  classification      TEXT,
  confidence          TEXT,
  start_believed      INTEGER NOT NULL DEFAULT 1,
  last_heard_at       INTEGER,
  UNIQUE (identity, starts_at)
);
INSERT INTO incidents_v8 (id, identity, fingerprint, starts_at, alertname, instance, severity, status, fired,
  fired_late, refires, firing_event_id, resolved_event_id, last_mail_event_id, superseded_by, opened_at, ended_at,
  closed_at, branch, rule_name, category, classification, confidence, start_believed, last_heard_at)
SELECT id, identity, fingerprint, starts_at, alertname, instance, severity, status, fired,
  fired_late, refires, firing_event_id, resolved_event_id, last_mail_event_id, superseded_by, opened_at, ended_at,
  closed_at, branch, rule_name, category, classification, confidence, start_believed, last_heard_at
FROM incidents;
DROP TABLE incidents;
ALTER TABLE incidents_v8 RENAME TO incidents;
CREATE INDEX incidents_opened ON incidents (opened_at);
CREATE UNIQUE INDEX incidents_one_open ON incidents (identity) WHERE status = 'open';
CREATE INDEX incidents_last_heard ON incidents (last_heard_at);
