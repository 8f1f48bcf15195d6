-- Events as received (one per alert), their de-duplication keys (D11) and the work queue (D25).
CREATE TABLE events (
  id           TEXT PRIMARY KEY,
  identity     TEXT NOT NULL,          -- Alertmanager fingerprint, or SHA-256 of the sorted labels
  fingerprint  TEXT,                   -- the fingerprint exactly as sent, when sent
  status       TEXT NOT NULL CHECK (status IN ('firing', 'resolved')),
  starts_at    TEXT NOT NULL,
  ends_at      TEXT,
  alertname    TEXT NOT NULL,
  instance     TEXT NOT NULL,          -- the appserver_instance label
  severity     TEXT NOT NULL,
  alert        TEXT NOT NULL,          -- the whole alert object as received (JSON: labels, annotations, ...)
  receiver     TEXT NOT NULL,
  group_key    TEXT NOT NULL,
  principal    TEXT NOT NULL,          -- name of the token that delivered it
  received_at  INTEGER NOT NULL        -- epoch milliseconds
);
CREATE INDEX events_received_at ON events (received_at);

CREATE TABLE dedup_keys (
  identity   TEXT NOT NULL,
  starts_at  TEXT NOT NULL,
  status     TEXT NOT NULL,
  -- Deferred: the key is claimed first (INSERT OR IGNORE), its event inserted right after.
  event_id   TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  PRIMARY KEY (identity, starts_at, status)
) WITHOUT ROWID;
CREATE INDEX dedup_keys_event ON dedup_keys (event_id);

CREATE TABLE queue_items (
  id            INTEGER PRIMARY KEY,
  event_id      TEXT NOT NULL UNIQUE REFERENCES events (id) ON DELETE CASCADE,
  status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'done', 'failed')),
  attempts      INTEGER NOT NULL DEFAULT 0,
  available_at  INTEGER NOT NULL,       -- epoch milliseconds
  lease_token   TEXT,
  locked_until  INTEGER,                -- epoch milliseconds
  last_error    TEXT,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE INDEX queue_items_ready ON queue_items (available_at, id) WHERE status = 'queued';
CREATE INDEX queue_items_leased ON queue_items (locked_until) WHERE status = 'processing';

-- Items per status, kept by triggers, so admission control (D9) reads one row instead of
-- counting a queue that may be long.
CREATE TABLE queue_depth (
  status  TEXT PRIMARY KEY,
  items   INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO queue_depth (status, items) VALUES ('queued', 0), ('processing', 0), ('done', 0), ('failed', 0);

CREATE TRIGGER queue_items_count_insert AFTER INSERT ON queue_items BEGIN
  UPDATE queue_depth SET items = items + 1 WHERE status = NEW.status;
END;
CREATE TRIGGER queue_items_count_update AFTER UPDATE OF status ON queue_items WHEN OLD.status <> NEW.status BEGIN
  UPDATE queue_depth SET items = items - 1 WHERE status = OLD.status;
  UPDATE queue_depth SET items = items + 1 WHERE status = NEW.status;
END;
CREATE TRIGGER queue_items_count_delete AFTER DELETE ON queue_items BEGIN
  UPDATE queue_depth SET items = items - 1 WHERE status = OLD.status;
END;
