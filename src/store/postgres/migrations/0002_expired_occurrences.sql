-- Issue 29 (docs/design.md, "Incidents", "Expiry"): an open occurrence no longer heard and never
-- resolved is closed as 'expired' after DIAG_INCIDENT_EXPIRY_HOURS; SQLite's migration 0008.
ALTER TABLE incidents DROP CONSTRAINT incidents_status_check;
ALTER TABLE incidents ADD CONSTRAINT incidents_status_check
  CHECK (status IN ('open', 'resolved', 'superseded', 'expired'));
