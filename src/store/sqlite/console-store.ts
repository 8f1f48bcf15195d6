import type { ConsoleSession, ConsoleStore } from '../console-port.js'
import * as sql from '../console-sql.js'
import { sqliteNamed } from '../sql-parameters.js'
import { type Db, walSync } from './database.js'

type Row = Record<string, unknown>

/**
 * The console's sessions and reads on the one SQLite connection (store/console-port.ts). A
 * sign-in and a sign-out are answered once synced (wal-sync.ts): a session signed out must
 * not come back after power loss. Touching a session's idle time or purging old ones is
 * not acknowledged to anyone and need not wait.
 */
export function sqliteConsoleStore(db: Db): ConsoleStore {
  const wal = walSync(db)
  const prepare = (text: string) => db.prepare<Row, Row>(sqliteNamed(text))
  const s = {
    insert: prepare(sql.sessionSql.insert),
    find: prepare(sql.sessionSql.find),
    touch: prepare(sql.sessionSql.touch),
    delete: prepare(sql.sessionSql.delete),
    purge: prepare(sql.sessionSql.purge),
    mails: prepare(sql.mailsSql),
    earlier: prepare(sql.earlierOccurrencesSql),
    perDay: prepare(sql.incidentsPerDaySql),
    delays: prepare(sql.reportDelaysSql),
    decisions: prepare(sql.ruleDecisionsSql),
  }
  return {
    createSession: async (session: ConsoleSession) => {
      s.insert.run(sql.sessionParams(session))
      await wal.durable()
    },
    findSession(idHash, now) {
      const row = s.find.get({ idHash, now })
      return row ? sql.toSession(row) : undefined
    },
    touchSession: (idHash, idleUntil) => void s.touch.run({ idHash, idleUntil }),
    deleteSession: async (idHash) => {
      const deleted = s.delete.run({ idHash }).changes > 0
      await wal.durable()
      return deleted
    },
    purgeSessions: (now) => s.purge.run({ now }).changes,
    mails: (id, limit) => sql.toMails(s.mails.all({ id, limit: limit + 1 }), limit),
    earlierOccurrences: (id, limit) => s.earlier.all({ id, limit }).map(sql.toOccurrence),
    incidentsPerDay: (since, until) => s.perDay.all({ since, until }).map(sql.toDayCount),
    reportDelays: (since, until) => s.delays.all({ since, until }).map(sql.toBucketCount),
    ruleDecisions: (week, month) => s.decisions.all({ week, month }).map(sql.toDecisions),
  }
}
