-- A custom rule's exception classes and meanings (docs/api.md, "Exceptions"): JSON arrays of
-- strings, NULL when the rule has none. Adding columns changes no row, so the append-only
-- triggers stay as they are.
ALTER TABLE rules ADD COLUMN exception_class TEXT;
ALTER TABLE rules ADD COLUMN exception_meaning TEXT;
