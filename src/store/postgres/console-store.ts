import type pg from 'pg'
import type { ConsoleStore } from '../console-port.js'
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
import { positional } from '../sql-parameters.js'

type Row = Record<string, unknown>

/** The console's sessions and reads on PostgreSQL, any replica alike (store/console-port.ts). */
export function pgConsoleStore(pool: pg.Pool): ConsoleStore {
  const query = async (sql: string, params: Record<string, unknown>) => {
    const { text, values } = positional(sql, params)
    return pool.query<Row>(text, values)
  }
  const rows = async (sql: string, params: Record<string, unknown>) => (await query(sql, params)).rows
  return {
    createSession: async (session) => void (await query(sessionSql.insert, sessionParams(session))),
    async findSession(idHash, now) {
      const [row] = await rows(sessionSql.find, { idHash, now })
      return row ? toSession(row) : undefined
    },
    touchSession: async (idHash, idleUntil) => void (await query(sessionSql.touch, { idHash, idleUntil })),
    deleteSession: async (idHash) => ((await query(sessionSql.delete, { idHash })).rowCount ?? 0) > 0,
    purgeSessions: async (now) => (await query(sessionSql.purge, { now })).rowCount ?? 0,
    timeline: async (id, limit) => {
      const [incident] = await rows(timelineSql.incident, { id })
      return toTimeline(incident, incident ? await rows(timelineSql.events, { id, limit: limit + 1 }) : [], limit)
    },
    mails: async (id, limit) => toMails(await rows(mailsSql, { id, limit: limit + 1 }), limit),
    earlierOccurrences: async (id, limit) => (await rows(earlierOccurrencesSql, { id, limit })).map(toOccurrence),
    incidentsPerDay: async (since, until) => (await rows(incidentsPerDaySql, { since, until })).map(toDayCount),
    reportDelays: async (since, until) => (await rows(reportDelaysSql, { since, until })).map(toBucketCount),
    ruleDecisions: async (week, month) => (await rows(ruleDecisionsSql, { week, month })).map(toDecisions),
  }
}
