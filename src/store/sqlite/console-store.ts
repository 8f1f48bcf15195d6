import type { ConsoleSession, ConsoleStore } from '../console-port.js'
import {
  earlierOccurrencesSql,
  incidentsPerDaySql,
  mailsSql,
  reportDelaysSql,
  ruleDecisionsSql,
  sessionParams,
  sessionSql,
  timelineSql,
  toBucketCount,
  toDayCount,
  toDecisions,
  toMails,
  toOccurrence,
  toSession,
  toTimeline,
} from '../console-sql.js'
import { sqliteNamed } from '../sql-parameters.js'
import type { Db } from './database.js'

type Row = Record<string, unknown>

/** The console's sessions and reads on the one SQLite connection (store/console-port.ts). */
export function sqliteConsoleStore(db: Db): ConsoleStore {
  const prepare = (sql: string) => db.prepare<Row, Row>(sqliteNamed(sql))
  const s = {
    insert: prepare(sessionSql.insert),
    find: prepare(sessionSql.find),
    touch: prepare(sessionSql.touch),
    delete: prepare(sessionSql.delete),
    purge: prepare(sessionSql.purge),
    incident: prepare(timelineSql.incident),
    events: prepare(timelineSql.events),
    mails: prepare(mailsSql),
    earlier: prepare(earlierOccurrencesSql),
    perDay: prepare(incidentsPerDaySql),
    delays: prepare(reportDelaysSql),
    decisions: prepare(ruleDecisionsSql),
  }
  return {
    createSession: (session: ConsoleSession) => void s.insert.run(sessionParams(session)),
    findSession(idHash, now) {
      const row = s.find.get({ idHash, now })
      return row ? toSession(row) : undefined
    },
    touchSession: (idHash, idleUntil) => void s.touch.run({ idHash, idleUntil }),
    deleteSession: (idHash) => s.delete.run({ idHash }).changes > 0,
    purgeSessions: (now) => s.purge.run({ now }).changes,
    timeline: (id, limit) => toTimeline(s.incident.get({ id }), s.events.all({ id, limit: limit + 1 }), limit),
    mails: (id, limit) => toMails(s.mails.all({ id, limit: limit + 1 }), limit),
    earlierOccurrences: (id, limit) => s.earlier.all({ id, limit }).map(toOccurrence),
    incidentsPerDay: (since, until) => s.perDay.all({ since, until }).map(toDayCount),
    reportDelays: (since, until) => s.delays.all({ since, until }).map(toBucketCount),
    ruleDecisions: (week, month) => s.decisions.all({ week, month }).map(toDecisions),
  }
}
