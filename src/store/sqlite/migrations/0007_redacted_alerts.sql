-- Issue 26 (docs/design.md, "Secret redaction"): labels, annotations, generatorURL and the
-- group key are stored redacted with the rules of the logs; notifications stored by earlier
-- versions are redacted the same way, by the same code.

UPDATE events SET alert = diag_redact_alert(alert), group_key = diag_redact_group_key(group_key);
