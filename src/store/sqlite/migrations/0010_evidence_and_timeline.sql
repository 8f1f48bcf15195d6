-- Issue 30 (docs/design.md, "Stored evidence", "An incident's timeline"): each diagnosed
-- event keeps its evidence bundle (the engine's inputs and the redacted excerpt, brotli,
-- at most 512 KiB), so that a replay sees what the diagnosis saw; the queue remembers when an
-- item was last claimed; and the duplicates an incident absorbed are counted by sender.
-- Everything hangs off events and incidents: retention removes it with them.

CREATE TABLE evidence_bundles (
  event_id     TEXT PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  incident_id  TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  created_at   INTEGER NOT NULL,          -- epoch milliseconds: when the diagnosis committed
  encoding     TEXT NOT NULL CHECK (encoding IN ('br')),
  format       INTEGER NOT NULL,
  raw_bytes    INTEGER NOT NULL,          -- its size before compression
  truncated    INTEGER NOT NULL DEFAULT 0, -- the 512 KiB bound dropped something (rules/bundle/bundle-bounds.ts)
  bundle       BLOB NOT NULL
);
-- The newest first, for a replay over the last N diagnosed events.
CREATE INDEX evidence_bundles_newest ON evidence_bundles (created_at, event_id);
CREATE INDEX evidence_bundles_incident ON evidence_bundles (incident_id);

ALTER TABLE queue_items ADD COLUMN claimed_at INTEGER;  -- the last claim (epoch milliseconds)

-- Duplicates are answered without a write (D31); their count is kept in memory with their
-- hearing and written with it, one row per incident, sender (token name) and receiver.
CREATE TABLE alert_duplicates (
  incident_id  TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  principal    TEXT NOT NULL,
  receiver     TEXT NOT NULL,
  duplicates   INTEGER NOT NULL,
  first_at     INTEGER NOT NULL,
  last_at      INTEGER NOT NULL,
  PRIMARY KEY (incident_id, principal, receiver)
);
