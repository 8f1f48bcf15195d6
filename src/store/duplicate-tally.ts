// The duplicates each incident absorbed, by sender (the token's name) and Alertmanager
// receiver, for its timeline (docs/api.md, "Timeline"). A duplicate is answered without a
// write (D31), so it is counted here, with its hearing, and written with it now and then
// (store/sqlite/heard-occurrences.ts, store/postgres/heard-occurrences.ts).

/** Who sent a notification: the token's name and the Alertmanager receiver it named. */
export interface Sender {
  principal: string
  receiver: string
}

export interface DuplicateCount extends Sender {
  incidentId: string
  duplicates: number
  firstAt: number
  lastAt: number
}

export class DuplicateTally {
  private pending = new Map<string, DuplicateCount>()

  count(incidentId: string, sender: Sender, at: number): void {
    this.add({
      incidentId,
      principal: sender.principal,
      receiver: sender.receiver,
      duplicates: 1,
      firstAt: at,
      lastAt: at,
    })
  }

  /** What was counted since the last take, now the caller's to write. */
  take(): DuplicateCount[] {
    const counts = [...this.pending.values()]
    this.pending = new Map()
    return counts
  }

  /** Counts whose write failed, kept for the next one. */
  restore(counts: readonly DuplicateCount[]): void {
    for (const c of counts) this.add({ ...c })
  }

  private add(count: DuplicateCount): void {
    const key = `${count.incidentId}\u0000${count.principal}\u0000${count.receiver}`
    const known = this.pending.get(key)
    if (!known) {
      this.pending.set(key, count)
      return
    }
    known.duplicates += count.duplicates
    known.firstAt = Math.min(known.firstAt, count.firstAt)
    known.lastAt = Math.max(known.lastAt, count.lastAt)
  }

  get size(): number {
    return this.pending.size
  }
}

/** One row per count, SQLite and PostgreSQL alike: the incident must still exist (retention may have removed it). */
export const upsertDuplicatesSql = (source: string) => `INSERT INTO alert_duplicates
  (incident_id, principal, receiver, duplicates, first_at, last_at)
  SELECT h.incident_id, h.principal, h.receiver, h.duplicates, h.first_at, h.last_at FROM ${source}
  WHERE EXISTS (SELECT 1 FROM incidents i WHERE i.id = h.incident_id)
  ON CONFLICT (incident_id, principal, receiver) DO UPDATE SET
    duplicates = alert_duplicates.duplicates + excluded.duplicates,
    first_at = CASE WHEN excluded.first_at < alert_duplicates.first_at THEN excluded.first_at ELSE alert_duplicates.first_at END,
    last_at = CASE WHEN excluded.last_at > alert_duplicates.last_at THEN excluded.last_at ELSE alert_duplicates.last_at END`
