import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { DeliveryOutcome, OutboxStore } from '../../mail/outbox-sender.js'
import { mailAlertColumns, toOutboxRow } from '../worker-rows.js'

/**
 * A batch's outcomes in one statement, one round trip however many (an UPDATE is atomic):
 * each row changes only under the claim it was sent under, the fencing token.
 */
const recordSql = `UPDATE outbox o SET
    status = CASE u.state WHEN 'sent' THEN 'sent' WHEN 'failed' THEN 'failed' ELSE o.status END,
    attempts = u.attempts,
    sent_at = CASE WHEN u.state = 'sent' THEN u.at ELSE o.sent_at END,
    next_attempt_at = CASE WHEN u.state = 'retry' THEN u.next_attempt_at ELSE o.next_attempt_at END,
    last_error = u.error, claim_token = NULL, claimed_until = NULL
  FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[], $5::bigint[], $6::bigint[], $7::text[])
    AS u (id, claim, state, attempts, at, next_attempt_at, error)
  WHERE o.id = u.id AND o.claim_token = u.claim`

function recordValues(outcomes: readonly DeliveryOutcome[]): unknown[][] {
  const column = <T>(of: (o: DeliveryOutcome) => T) => outcomes.map(of)
  return [
    column((o) => o.id),
    column((o) => o.claim ?? null),
    column((o) => o.state),
    column((o) => o.attempts),
    column((o) => (o.state === 'sent' ? o.at : null)),
    column((o) => (o.state === 'retry' ? o.nextAttemptAt : null)),
    column((o) => (o.state === 'sent' ? null : o.error)),
  ]
}

/**
 * The outbox on PostgreSQL, shared by every replica (docs/design.md, "Storage"). Due rows
 * are claimed like the queue's items, `FOR UPDATE SKIP LOCKED`, each claim with a token and
 * an expiry longer than a send can take; an outcome is recorded only under the claim it was
 * sent under, and a claim is renewed while its rows are being sent. A replica killed mid-send
 * leaves its claim to expire, and another sends the same message again, with the same
 * Message-ID: the report is never a second, different one.
 */
export function pgOutboxStore(pool: pg.Pool, options: { claimMs: number }): OutboxStore {
  return {
    async due(now, limit) {
      const claim = randomUUID()
      const { rows } = await pool.query<Record<string, unknown>>(
        `UPDATE outbox SET claim_token = $1, claimed_until = $2
          WHERE id IN (SELECT o.id FROM outbox o
                        WHERE o.status = 'pending' AND o.next_attempt_at <= $3
                          AND (o.claimed_until IS NULL OR o.claimed_until < $3)
                          AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.event_id = o.after_event_id AND p.status = 'pending')
                        ORDER BY o.next_attempt_at, o.id LIMIT $4 FOR UPDATE SKIP LOCKED)
          RETURNING *, ${mailAlertColumns('outbox')}`,
        [claim, now + options.claimMs, now, limit],
      )
      return rows
        .sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || Number(a.id) - Number(b.id))
        .map((row) => toOutboxRow(row, claim))
    },
    renew: {
      // Three renewals a claim: one late timer on a loaded host does not lose it.
      everyMs: Math.max(50, Math.floor(options.claimMs / 3)),
      async claim(claim, now) {
        await pool.query("UPDATE outbox SET claimed_until = $2 WHERE claim_token = $1 AND status = 'pending'", [
          claim,
          now + options.claimMs,
        ])
      },
    },
    async record(outcomes: readonly DeliveryOutcome[]) {
      if (outcomes.length === 0) return
      await pool.query({ name: 'diag_outbox_record', text: recordSql, values: recordValues(outcomes) })
    },
  }
}
