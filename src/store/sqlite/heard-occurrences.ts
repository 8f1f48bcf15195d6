import { DuplicateTally, type Sender, upsertDuplicatesSql } from '../duplicate-tally.js'
import type { Db } from './database.js'

/**
 * When each occurrence was last heard, duplicates included (docs/design.md, "Retention").
 * A duplicate is answered without a write, so its hearing is kept here and written in one
 * small transaction now and then (every `everyMs`, before retention, at shutdown), never one
 * write per duplicate. Only ever moves `last_heard_at` forward. A hearing by a sender is a
 * duplicate absorbed, counted for the incident's timeline (store/duplicate-tally.ts).
 */
export class HeardOccurrences {
  private readonly pending = new Map<string, number>()
  private readonly duplicates = new DuplicateTally()
  private readonly update
  private readonly upsert
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly db: Db) {
    this.update = db.prepare('UPDATE incidents SET last_heard_at = max(coalesce(last_heard_at, 0), ?) WHERE id = ?')
    this.upsert = db.prepare(
      upsertDuplicatesSql(
        '(SELECT ? AS incident_id, ? AS principal, ? AS receiver, ? AS duplicates, ? AS first_at, ? AS last_at) AS h',
      ),
    )
  }

  heard(incidentId: string, at: number, sender?: Sender): void {
    this.pending.set(incidentId, at)
    if (sender) this.duplicates.count(incidentId, sender, at)
  }

  /** Writes what was heard since the last write, inside the caller's transaction. */
  writeInto(): void {
    const entries = [...this.pending]
    const counts = this.duplicates.take()
    this.pending.clear()
    try {
      for (const [id, at] of entries) this.update.run(at, id)
      for (const c of counts) this.upsert.run(c.incidentId, c.principal, c.receiver, c.duplicates, c.firstAt, c.lastAt)
    } catch (error) {
      // Kept for the next write: a full disk must not make a firing alert look silent.
      for (const [id, at] of entries) if (!this.pending.has(id)) this.pending.set(id, at)
      this.duplicates.restore(counts)
      throw error
    }
  }

  /** Writes what was heard, in a transaction of its own. */
  write(): void {
    if (this.pending.size > 0 || this.duplicates.size > 0) this.db.transaction(() => this.writeInto()).immediate()
  }

  start(everyMs: number, onError: (error: unknown) => void): void {
    this.timer = setInterval(() => {
      try {
        this.write()
      } catch (error) {
        onError(error)
      }
    }, everyMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
  }
}
