// The work queue's statements, the same for both storage adapters (D25, docs/design.md
// "Storage"): numbered parameters, `$n` as PostgreSQL writes them; SQLite reads them as `?n`.
// Every change after a claim compares the lease token (compare-and-swap): a worker whose
// lease expired and was taken over can no longer complete, renew or fail the item.

/** `lock`: PostgreSQL's `FOR UPDATE SKIP LOCKED`, so that replicas claiming at once never wait for each other. */
export const claimSql = (lock: string) => `
  UPDATE queue_items
     SET status = 'processing', lease_token = $1, locked_until = $2, attempts = attempts + 1, updated_at = $3,
         claimed_at = $3
   WHERE id IN (SELECT id FROM queue_items WHERE status = 'queued' AND available_at <= $3
                 ORDER BY available_at, id LIMIT $4 ${lock})
  RETURNING id, event_id, attempts, available_at`

export const queueSql = {
  renew: `UPDATE queue_items SET locked_until = $1, updated_at = $2
    WHERE id = $3 AND lease_token = $4 AND status = 'processing'`,
  finish: `UPDATE queue_items SET status = $1, lease_token = NULL, locked_until = NULL, last_error = $2,
    available_at = $3, updated_at = $4 WHERE id = $5 AND lease_token = $6 AND status = 'processing'`,
  defer: `UPDATE queue_items SET status = 'queued', attempts = attempts - 1, lease_token = NULL,
    locked_until = NULL, last_error = $1, available_at = $2, updated_at = $3
    WHERE id = $4 AND lease_token = $5 AND status = 'processing'`,
  /** Expired leases back to the queue, or failed for good past `$2` expiries; one statement. */
  expire: `UPDATE queue_items
    SET status = CASE WHEN expiries + 1 > $2 THEN 'failed' ELSE 'queued' END, expiries = expiries + 1,
        lease_token = NULL, locked_until = NULL, last_error = 'lease expired', available_at = $1, updated_at = $1
    WHERE status = 'processing' AND locked_until < $1
    RETURNING status`,
}
