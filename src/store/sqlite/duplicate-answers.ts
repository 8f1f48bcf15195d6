import type { Db } from './database.js'

/** What a duplicate notification is answered with: the incident and the event it repeats. */
export interface DuplicateAnswer {
  incidentId: string
  eventId: string
}

/** How late a write by another connection may be seen (docs/design.md, D31). */
const versionCheckMs = 20

/** Identities remembered at most; past it the oldest are forgotten (insertion order). */
const capacity = 50_000

/**
 * Answers to notifications already found to be duplicates, so that Alertmanager's repeats
 * (most webhook traffic) are answered without reading the incidents and events again
 * (docs/performance.md, "Where the duplicate path spends its time").
 *
 * An answer stays true until the identity's incidents change. This process's own writes
 * forget the identity (`forget`, from the ledger) or everything (`clear`, from retention).
 * Writes by any other connection (an operator's sqlite3, a second process by mistake)
 * move SQLite's `data_version`, which forgets everything; it is read at most every
 * `versionCheckMs`, because reading it costs as much as the reads it saves. Only
 * committed reads are remembered (`remember` is called outside any transaction).
 */
export class DuplicateAnswers {
  private readonly byIdentity = new Map<string, Map<string, DuplicateAnswer>>()
  private readonly dataVersion
  private seenVersion: number
  private checkedAt = Number.NEGATIVE_INFINITY

  private constructor(db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck()
    this.seenVersion = Number(this.dataVersion.get())
  }

  private static readonly perDatabase = new WeakMap<Db, DuplicateAnswers>()

  /** The one cache of a connection: the ledger and retention must share it. */
  static of(db: Db): DuplicateAnswers {
    let answers = DuplicateAnswers.perDatabase.get(db)
    if (!answers) {
      answers = new DuplicateAnswers(db)
      DuplicateAnswers.perDatabase.set(db, answers)
    }
    return answers
  }

  get(identity: string, startsAt: number, status: string): DuplicateAnswer | undefined {
    const now = performance.now()
    if (now - this.checkedAt >= versionCheckMs) {
      this.checkedAt = now
      const version = Number(this.dataVersion.get())
      if (version !== this.seenVersion) {
        this.seenVersion = version
        this.byIdentity.clear()
        return undefined
      }
    }
    return this.byIdentity.get(identity)?.get(`${startsAt} ${status}`)
  }

  remember(identity: string, startsAt: number, status: string, answer: DuplicateAnswer): void {
    let answers = this.byIdentity.get(identity)
    if (!answers) {
      if (this.byIdentity.size >= capacity) this.byIdentity.delete(this.byIdentity.keys().next().value as string)
      answers = new Map()
      this.byIdentity.set(identity, answers)
    }
    answers.set(`${startsAt} ${status}`, answer)
  }

  /** The identity's incidents are about to change. */
  forget(identity: string): void {
    this.byIdentity.delete(identity)
  }

  clear(): void {
    this.byIdentity.clear()
  }
}
