-- Issue 30 (docs/design.md, "The web console"): the console's sessions, the primary
-- finding's confidence on each incident (a filter of the list), and the indexes that keep
-- the list's keyset pages an index range, with or without one filter.

-- A session is found by the SHA-256 (hex) of its id: the id itself is only in the browser's
-- cookie, so a copy of the database signs no one in. `idle_until` moves forward with use,
-- never past `expires_at`; housekeeping removes a session once either has passed.
CREATE TABLE console_sessions (
  id_hash     TEXT PRIMARY KEY,
  principal   TEXT NOT NULL,          -- the name of the token that signed in
  scopes      TEXT NOT NULL,          -- JSON array: that token's scopes at sign-in
  created_at  INTEGER NOT NULL,       -- epoch milliseconds
  idle_until  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_ends ON console_sessions (expires_at);

-- Newest first by (opened_at, id); each filter leads an index of its own. Label values run
-- to 16 KiB, so instance and alertname are indexed by their first 200 characters (the list
-- compares the whole value after), as PostgreSQL's index entries are bounded.
DROP INDEX incidents_opened;
CREATE INDEX incidents_opened ON incidents (opened_at, id);
CREATE INDEX incidents_status_opened ON incidents (status, opened_at, id);
CREATE INDEX incidents_branch_opened ON incidents (branch, opened_at, id);
CREATE INDEX incidents_category_opened ON incidents (category, opened_at, id);
CREATE INDEX incidents_confidence_opened ON incidents (confidence, opened_at, id);
CREATE INDEX incidents_instance_opened ON incidents (substr(instance, 1, 200), opened_at, id);
CREATE INDEX incidents_alertname_opened ON incidents (substr(alertname, 1, 200), opened_at, id);

-- The confidence of the newest diagnosis of each incident, as the worker now records it.
UPDATE incidents SET confidence = (
  SELECT json_extract(r.result, '$.primary.confidence') FROM results r
  WHERE r.incident_id = incidents.id AND r.kind = 'diagnosis' ORDER BY r.created_at DESC, r.event_id DESC LIMIT 1)
WHERE branch IS NOT NULL;
