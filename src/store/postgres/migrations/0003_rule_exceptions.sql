-- A custom rule's exception classes and meanings (docs/api.md, "Exceptions"): JSON arrays of
-- strings, NULL when the rule has none, as on SQLite (0008_rule_exceptions.sql). Adding
-- columns changes no row, so the append-only trigger stays as it is.
ALTER TABLE rules ADD COLUMN exception_class TEXT;
ALTER TABLE rules ADD COLUMN exception_meaning TEXT;
