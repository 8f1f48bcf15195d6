-- An explicit priority for a custom rule (docs/design.md, "Ranking"): NULL keeps the
-- priority of its classification (90 confirmed, 60 probable). Adding a column changes no
-- row, so the append-only triggers stay as they are.
ALTER TABLE rules ADD COLUMN priority INTEGER CHECK (priority BETWEEN 1 AND 100);
