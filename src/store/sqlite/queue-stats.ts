import type { QueueStats } from '../../metrics.js'
import type { Db } from './database.js'

/** The queue's depth per status (the trigger-kept `queue_depth` rows) and its oldest waiting event. */
export function queueStats(db: Db): () => QueueStats {
  const depth = db.prepare<[], { status: string; items: number }>(
    "SELECT status, items FROM queue_depth WHERE status IN ('queued', 'processing')",
  )
  // queue_items_ready covers every queued item; the queue is bounded (D9), so this is short.
  const oldest = db.prepare("SELECT min(created_at) FROM queue_items WHERE status = 'queued'").pluck()
  return () => {
    const rows = Object.fromEntries(depth.all().map((row) => [row.status, row.items]))
    const at = oldest.get() as number | null
    return { queued: rows.queued ?? 0, processing: rows.processing ?? 0, oldestQueuedAt: at ?? null }
  }
}
