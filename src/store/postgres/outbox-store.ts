import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { DeliveryOutcome, OutboxStore } from '../../mail/outbox-sender.js'
import { mailAlertColumns, toOutboxRow } from '../worker-rows.js'
import { inTransaction } from './pool.js'

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
      await inTransaction(pool, async (client) => {
        for (const o of outcomes) {
          const fence = [o.id, o.claim ?? null]
          if (o.state === 'sent') {
            await client.query(
              `UPDATE outbox SET status = 'sent', attempts = $3, sent_at = $4, last_error = NULL,
                claim_token = NULL, claimed_until = NULL WHERE id = $1 AND claim_token = $2`,
              [...fence, o.attempts, o.at],
            )
          } else if (o.state === 'retry') {
            await client.query(
              `UPDATE outbox SET attempts = $3, next_attempt_at = $4, last_error = $5,
                claim_token = NULL, claimed_until = NULL WHERE id = $1 AND claim_token = $2`,
              [...fence, o.attempts, o.nextAttemptAt, o.error],
            )
          } else {
            await client.query(
              `UPDATE outbox SET status = 'failed', attempts = $3, last_error = $4,
                claim_token = NULL, claimed_until = NULL WHERE id = $1 AND claim_token = $2`,
              [...fence, o.attempts, o.error],
            )
          }
        }
      })
    },
  }
}
