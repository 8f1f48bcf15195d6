import type pg from 'pg'
import type { ConsoleStore } from '../console-port.js'
import * as sql from '../console-sql.js'
import { positional } from '../sql-parameters.js'

type Row = Record<string, unknown>

/** The console's sessions and reads on PostgreSQL, any replica alike (store/console-port.ts). */
export function pgConsoleStore(pool: pg.Pool): ConsoleStore {
  const query = async (statement: string, params: Record<string, unknown>) => {
    const { text, values } = positional(statement, params)
    return pool.query<Row>(text, values)
  }
  const rows = async (statement: string, params: Record<string, unknown>) => (await query(statement, params)).rows
  return {
    createSession: async (session) => void (await query(sql.sessionSql.insert, sql.sessionParams(session))),
    async findSession(idHash, now) {
      const [row] = await rows(sql.sessionSql.find, { idHash, now })
      return row ? sql.toSession(row) : undefined
    },
    touchSession: async (idHash, idleUntil) => void (await query(sql.sessionSql.touch, { idHash, idleUntil })),
    deleteSession: async (idHash) => ((await query(sql.sessionSql.delete, { idHash })).rowCount ?? 0) > 0,
    purgeSessions: async (now) => (await query(sql.sessionSql.purge, { now })).rowCount ?? 0,
    mails: async (id, limit) => sql.toMails(await rows(sql.mailsSql, { id, limit: limit + 1 }), limit),
    earlierOccurrences: async (id, limit) =>
      (await rows(sql.earlierOccurrencesSql, { id, limit })).map(sql.toOccurrence),
    incidentsPerDay: async (since, until) => (await rows(sql.incidentsPerDaySql, { since, until })).map(sql.toDayCount),
    reportDelays: async (since, until) => (await rows(sql.reportDelaysSql, { since, until })).map(sql.toBucketCount),
    ruleDecisions: async (week, month) => (await rows(sql.ruleDecisionsSql, { week, month })).map(sql.toDecisions),
  }
}
