-- migrate: foreign_keys=off
-- The incident lifecycle of docs/design.md ("Incidents"): an alert's identity is the hash
-- of its labels computed here (never the sender's fingerprint), its times are instants,
-- and every stored notification names its incident and what it did to it. The de-dup keys
-- go: whether a notification is a duplicate now depends on the state of its incident.

ALTER TABLE events ADD COLUMN starts_ms INTEGER;       -- startsAt as epoch milliseconds (UTC)
ALTER TABLE events ADD COLUMN ends_ms INTEGER;         -- endsAt as epoch milliseconds, when sent
ALTER TABLE events ADD COLUMN incident_id TEXT REFERENCES incidents (id) ON DELETE CASCADE;
ALTER TABLE events ADD COLUMN transition TEXT;         -- lifecycle.ts: opened, resolved, refired, ...
ALTER TABLE events ADD COLUMN after_event_id TEXT;     -- the event whose mail this event's mail follows

-- Rows stored by earlier versions: identity and instants computed as ingestion now does.
UPDATE events SET identity = diag_identity(alert), starts_ms = diag_instant(starts_at), ends_ms = diag_instant(ends_at);
DROP TABLE dedup_keys;

CREATE TABLE incidents_v4 (
  id                  TEXT PRIMARY KEY,
  identity            TEXT NOT NULL,
  fingerprint         TEXT NOT NULL,          -- Alertmanager's fingerprint of the labels, computed here
  starts_at           INTEGER NOT NULL,       -- epoch milliseconds
  alertname           TEXT NOT NULL,
  instance            TEXT NOT NULL,
  severity            TEXT NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'superseded')),
  fired               INTEGER NOT NULL DEFAULT 0,  -- a firing notification was recorded
  fired_late          INTEGER NOT NULL DEFAULT 0,  -- its first firing came after it had ended
  refires             INTEGER NOT NULL DEFAULT 0,
  firing_event_id     TEXT,                   -- its first firing: the diagnosis report
  resolved_event_id   TEXT,                   -- the resolution that closed it
  last_mail_event_id  TEXT,                   -- the event whose mail the next one follows
  superseded_by       TEXT,                   -- the incident whose start ended this one
  opened_at           INTEGER NOT NULL,       -- when the service first heard of it
  ended_at            INTEGER,                -- endsAt of its resolution, or the start that superseded it
  closed_at           INTEGER,                -- when the service recorded that end
  branch              TEXT,
  rule_name           TEXT,
  category            TEXT,
  classification      TEXT,
  confidence          TEXT,
  UNIQUE (identity, starts_at)
);

-- Earlier incidents: where one instant had several (sent with different offsets or
-- fingerprints), the first keeps the name.
INSERT OR IGNORE INTO incidents_v4 (id, identity, fingerprint, starts_at, alertname, instance, severity, status,
  fired, firing_event_id, resolved_event_id, last_mail_event_id, opened_at, ended_at, closed_at,
  branch, rule_name, category, classification, confidence)
SELECT i.id, f.identity, diag_fingerprint(f.alert), f.starts_ms, i.alertname, i.instance, i.severity, i.status,
  1, i.firing_event_id, i.resolved_event_id, coalesce(i.resolved_event_id, i.firing_event_id), i.opened_at,
  CASE WHEN r.ends_ms >= f.starts_ms THEN r.ends_ms ELSE i.resolved_at END, i.resolved_at,
  i.branch, i.rule_name, i.category, i.classification, i.confidence
FROM incidents i JOIN events f ON f.id = i.firing_event_id LEFT JOIN events r ON r.id = i.resolved_event_id
ORDER BY i.opened_at, i.id;

-- Events with no incident yet (still queued, or resolutions that found none): one per instant.
INSERT OR IGNORE INTO incidents_v4 (id, identity, fingerprint, starts_at, alertname, instance, severity, status,
  fired, firing_event_id, resolved_event_id, last_mail_event_id, opened_at, ended_at, closed_at)
SELECT e.id, e.identity, diag_fingerprint(e.alert), e.starts_ms, e.alertname, e.instance, e.severity,
  CASE e.status WHEN 'firing' THEN 'open' ELSE 'resolved' END,
  e.status = 'firing', CASE e.status WHEN 'firing' THEN e.id END, CASE e.status WHEN 'resolved' THEN e.id END,
  CASE e.status WHEN 'firing' THEN e.id END, e.received_at,
  CASE e.status WHEN 'resolved' THEN max(coalesce(e.ends_ms, e.received_at), e.starts_ms) END,
  CASE e.status WHEN 'resolved' THEN e.received_at END
FROM events e ORDER BY e.status, e.received_at, e.id;

DROP TABLE incidents;
ALTER TABLE incidents_v4 RENAME TO incidents;
CREATE INDEX incidents_opened ON incidents (opened_at);

UPDATE events SET incident_id = (SELECT i.id FROM incidents i WHERE i.identity = events.identity AND i.starts_at = events.starts_ms);
UPDATE events SET transition = CASE
  WHEN status = 'firing' THEN 'opened'
  WHEN id IN (SELECT resolved_event_id FROM incidents) AND
       EXISTS (SELECT 1 FROM incidents i WHERE i.id = events.incident_id AND i.fired) THEN 'resolved'
  ELSE 'unmatched_resolution' END;
-- A resolution still queued closes its incident here; the worker sends its recovery.
UPDATE incidents SET status = 'resolved', closed_at = r.received_at, resolved_event_id = r.id,
  ended_at = max(coalesce(r.ends_ms, r.received_at), incidents.starts_at), last_mail_event_id = r.id
FROM (SELECT e.id, e.incident_id, e.received_at, e.ends_ms FROM events e JOIN queue_items q ON q.event_id = e.id
      WHERE e.status = 'resolved' AND q.status IN ('queued', 'processing')) AS r
WHERE r.incident_id = incidents.id AND incidents.status = 'open';
UPDATE events SET transition = 'resolved', after_event_id = (SELECT firing_event_id FROM incidents i WHERE i.id = events.incident_id)
WHERE id IN (SELECT resolved_event_id FROM incidents WHERE fired) AND status = 'resolved';
-- At most one open incident per identity, the newest (earlier versions could leave several).
UPDATE incidents SET status = 'superseded', closed_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
  ended_at = (SELECT min(n.starts_at) FROM incidents n WHERE n.identity = incidents.identity AND n.starts_at > incidents.starts_at)
WHERE status = 'open' AND EXISTS (SELECT 1 FROM incidents n WHERE n.identity = incidents.identity AND n.starts_at > incidents.starts_at);
UPDATE results SET incident_id = (SELECT incident_id FROM events WHERE events.id = results.event_id);
CREATE INDEX events_incident ON events (incident_id, received_at);

-- Re-fire reports join the outbox, and a mail waits for the one it follows (after_event_id).
CREATE TABLE outbox_v4 (
  id               INTEGER PRIMARY KEY,
  event_id         TEXT NOT NULL UNIQUE REFERENCES events (id) ON DELETE CASCADE,
  kind             TEXT NOT NULL CHECK (kind IN ('diagnosis', 'refire', 'recovery')),
  after_event_id   TEXT,               -- not sent while that event's mail is pending
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
INSERT INTO outbox_v4 (id, event_id, kind, message_id, in_reply_to, subject, recipients, text_body, html_body,
  status, attempts, next_attempt_at, last_error, created_at, sent_at)
SELECT id, event_id, kind, message_id, in_reply_to, subject, recipients, text_body, html_body,
  status, attempts, next_attempt_at, last_error, created_at, sent_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v4 RENAME TO outbox;
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX outbox_after ON outbox (after_event_id) WHERE after_event_id IS NOT NULL;
