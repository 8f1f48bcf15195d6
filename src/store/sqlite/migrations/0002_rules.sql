-- Custom diagnosis rules (D19). Append-only: the triggers below refuse every UPDATE and
-- DELETE, so a rule once accepted can never change or disappear, even through a bug.
CREATE TABLE rules (
  id                   INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id              TEXT,                 -- alertname the rule is limited to; NULL: every alert
  branch               TEXT NOT NULL UNIQUE,
  rule_name            TEXT NOT NULL UNIQUE,
  category             TEXT NOT NULL,
  target_source        TEXT NOT NULL,
  pattern              TEXT NOT NULL UNIQUE,
  assessment           TEXT NOT NULL,
  classification       TEXT NOT NULL CHECK (classification IN ('confirmed_cause', 'probable_cause')),
  confidence           TEXT NOT NULL CHECK (confidence IN ('high', 'medium')),
  recommended_actions  TEXT NOT NULL,        -- JSON array of strings
  created_by           TEXT NOT NULL,
  principal            TEXT NOT NULL,        -- the token name that made the call
  created_at           TEXT NOT NULL         -- ISO 8601 UTC with milliseconds
);

CREATE TRIGGER rules_append_only_update BEFORE UPDATE ON rules BEGIN
  SELECT RAISE(ABORT, 'rules are append-only');
END;
CREATE TRIGGER rules_append_only_delete BEFORE DELETE ON rules BEGIN
  SELECT RAISE(ABORT, 'rules are append-only');
END;
