import type { WorkerStore } from '../../worker/ports.js'
import { bundleColumns, bundleValues } from '../evidence-bundles.js'
import { mailValues } from '../worker-rows.js'

// A processed event's commit on PostgreSQL as one statement, so one round trip (docs/design.md,
// "Storage"): the result, and only if it was new, the incident's headline, the evidence
// bundle, the outbox row and the queue item done under its lease token. Sent as BEGIN, five
// statements and COMMIT, it was seven round trips an event, each a wake-up of a backend and
// of the replica. A part the input lacks has NULL values and writes nothing.

const ifNew = 'EXISTS (SELECT 1 FROM result)'

const text = `WITH result AS (
    INSERT INTO results (event_id, incident_id, kind, result, created_at)
    VALUES ($1::text, $2::text, $3::text, $4::text, $5::bigint)
    ON CONFLICT (event_id) DO NOTHING RETURNING event_id
  ), headline AS (
    UPDATE incidents SET branch = $6::text, rule_name = $7::text, category = $8::text,
      classification = $9::text, confidence = $10::text
    WHERE id = $2::text AND $6::text IS NOT NULL AND ${ifNew}
  ), bundle AS (
    INSERT INTO evidence_bundles (${bundleColumns})
    SELECT $1::text, $2::text, $5::bigint, $11::text, $12::integer, $13::integer, $14::smallint, $15::bytea
    WHERE $15::bytea IS NOT NULL AND ${ifNew}
  ), mail AS (
    INSERT INTO outbox (event_id, kind, after_event_id, message_id, in_reply_to, subject, recipients,
      text_body, html_body, next_attempt_at, created_at)
    SELECT $16::text, $17::text, $18::text, $19::text, $20::text, $21::text, $22::text, $23::text, $24::text,
      $5::bigint, $5::bigint
    WHERE $16::text IS NOT NULL AND ${ifNew}
  ), lease AS (
    UPDATE queue_items SET status = 'done', lease_token = NULL, locked_until = NULL, last_error = NULL,
      available_at = $5::bigint, updated_at = $5::bigint
    WHERE id = $25::bigint AND lease_token = $26::text AND status = 'processing' AND ${ifNew}
  )
  SELECT count(*)::integer AS inserted FROM result`

const none = (count: number) => new Array<null>(count).fill(null)

/** The statement and its values; `name` makes node-postgres prepare it once per connection. */
export function resultCommit(input: Parameters<WorkerStore['commit']>[0]) {
  const { eventId, incidentId, headline: h, bundle, mail, lease, now } = input
  return {
    name: 'diag_result_commit',
    text,
    values: [
      eventId,
      incidentId,
      input.kind,
      JSON.stringify(input.result),
      now,
      ...(h ? [h.branch, h.ruleName, h.category, h.classification, h.confidence ?? null] : none(5)),
      // The bundle's own columns: bundleValues after its event id, incident id and time.
      ...(bundle ? bundleValues(eventId, incidentId, bundle, now).slice(3) : none(5)),
      // The mail's columns but its time, which is $5.
      ...(mail ? mailValues(mail, now).slice(0, 9) : none(9)),
      ...(lease ? [lease.itemId, lease.token] : none(2)),
    ],
  }
}
