-- Issue 30 (docs/design.md, "Stored evidence", "An incident's timeline"): SQLite's migration
-- 0010 in PostgreSQL's types. Everything hangs off events and incidents: retention removes it with them.

CREATE TABLE evidence_bundles (
  event_id     TEXT PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  incident_id  TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  created_at   BIGINT NOT NULL,
  encoding     TEXT NOT NULL CHECK (encoding IN ('br')),
  format       INTEGER NOT NULL,
  raw_bytes    INTEGER NOT NULL,
  truncated    SMALLINT NOT NULL DEFAULT 0,
  bundle       BYTEA NOT NULL
);
-- Already compressed: PostgreSQL's own compression (pglz) would only spend CPU on it.
ALTER TABLE evidence_bundles ALTER COLUMN bundle SET STORAGE EXTERNAL;
CREATE INDEX evidence_bundles_newest ON evidence_bundles (created_at, event_id);
CREATE INDEX evidence_bundles_incident ON evidence_bundles (incident_id);

ALTER TABLE queue_items ADD COLUMN claimed_at BIGINT;

CREATE TABLE alert_duplicates (
  incident_id  TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  principal    TEXT NOT NULL,
  receiver     TEXT NOT NULL,
  duplicates   INTEGER NOT NULL,
  first_at     BIGINT NOT NULL,
  last_at      BIGINT NOT NULL,
  PRIMARY KEY (incident_id, principal, receiver)
);
