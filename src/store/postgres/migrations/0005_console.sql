-- Issue 30 (docs/design.md, "The web console"): the console's sessions, the primary
-- finding's confidence on each incident and the list's indexes, as SQLite's 0011_console.sql.

CREATE TABLE console_sessions (
  id_hash     TEXT PRIMARY KEY,
  principal   TEXT NOT NULL,
  scopes      TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  idle_until  BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL
);
CREATE INDEX console_sessions_ends ON console_sessions (expires_at);

-- An index entry is bounded (about 2.7 kB): instance and alertname by their first 200 characters.
DROP INDEX incidents_opened;
CREATE INDEX incidents_opened ON incidents (opened_at, id);
CREATE INDEX incidents_status_opened ON incidents (status, opened_at, id);
CREATE INDEX incidents_branch_opened ON incidents (branch, opened_at, id);
CREATE INDEX incidents_category_opened ON incidents (category, opened_at, id);
CREATE INDEX incidents_confidence_opened ON incidents (confidence, opened_at, id);
CREATE INDEX incidents_instance_opened ON incidents (substr(instance, 1, 200), opened_at, id);
CREATE INDEX incidents_alertname_opened ON incidents (substr(alertname, 1, 200), opened_at, id);

-- A stored result may escape U+0000 (a log line's), which PostgreSQL's JSON functions
-- refuse: the escape is read as U+FFFD's, only to take the confidence out.
UPDATE incidents SET confidence = (
  SELECT replace(r.result, '\u0000', '\ufffd')::json #>> '{primary,confidence}' FROM results r
  WHERE r.incident_id = incidents.id AND r.kind = 'diagnosis' ORDER BY r.created_at DESC, r.event_id DESC LIMIT 1)
WHERE branch IS NOT NULL;
