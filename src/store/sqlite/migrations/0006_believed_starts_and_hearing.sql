-- Issue 26 (docs/design.md, "Incidents"): a start from a clock far ahead is filed but not
-- believed, and takes no part in ordering an alert's occurrences; each occurrence keeps
-- when it was last heard, duplicates included, so retention never removes what still fires.

ALTER TABLE incidents ADD COLUMN start_believed INTEGER NOT NULL DEFAULT 1;
ALTER TABLE incidents ADD COLUMN last_heard_at INTEGER;

UPDATE incidents SET last_heard_at = coalesce(
  (SELECT max(received_at) FROM events WHERE events.incident_id = incidents.id), opened_at);

-- At most one open occurrence per alert, enforced here and not only by the ledger.
CREATE UNIQUE INDEX incidents_one_open ON incidents (identity) WHERE status = 'open';
CREATE INDEX incidents_last_heard ON incidents (last_heard_at);
