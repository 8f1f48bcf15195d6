import { type ConsoleSession, type IncidentMail, type Occurrence, reportDelayBounds } from './console-port.js'

// The console's statements, the same on both adapters (console-port.ts), in `$name`
// placeholders that each adapter spells its way (sql-parameters.ts), and the rows they give
// as the port's shapes. Epoch milliseconds throughout, as the rest of the schema.

const num = (value: unknown) => Number(value)
const numOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value))

export const sessionSql = {
  insert: `INSERT INTO console_sessions (id_hash, principal, scopes, created_at, idle_until, expires_at)
    VALUES ($idHash, $principal, $scopes, $createdAt, $idleUntil, $expiresAt)`,
  find: `SELECT id_hash, principal, scopes, created_at, idle_until, expires_at FROM console_sessions
    WHERE id_hash = $idHash AND idle_until > $now AND expires_at > $now`,
  touch: `UPDATE console_sessions SET idle_until = CASE WHEN $idleUntil < expires_at THEN $idleUntil ELSE expires_at END
    WHERE id_hash = $idHash`,
  delete: 'DELETE FROM console_sessions WHERE id_hash = $idHash',
  purge: 'DELETE FROM console_sessions WHERE idle_until <= $now OR expires_at <= $now',
}

export const sessionParams = (s: ConsoleSession) => ({ ...s, scopes: JSON.stringify(s.scopes) })

export const toSession = (row: Record<string, unknown>): ConsoleSession => ({
  idHash: row.id_hash as string,
  principal: row.principal as string,
  scopes: JSON.parse(row.scopes as string) as string[],
  createdAt: num(row.created_at),
  idleUntil: num(row.idle_until),
  expiresAt: num(row.expires_at),
})

export const mailsSql = `SELECT o.event_id, o.kind, o.status, o.subject, o.message_id, o.text_body, o.created_at, o.sent_at
  FROM outbox o JOIN events e ON e.id = o.event_id WHERE e.incident_id = $id ORDER BY o.id LIMIT $limit`

export function toMails(rows: Array<Record<string, unknown>>, limit: number) {
  const mails = rows.slice(0, limit).map(
    (row): IncidentMail => ({
      eventId: row.event_id as string,
      kind: row.kind as string,
      status: row.status as string,
      subject: row.subject as string,
      messageId: row.message_id as string,
      text: row.text_body as string,
      createdAt: num(row.created_at),
      sentAt: numOrNull(row.sent_at),
    }),
  )
  return { mails, more: rows.length > limit }
}

// The identity's occurrences are one range of its UNIQUE (identity, starts_at) index.
export const earlierOccurrencesSql = `SELECT o.id, o.status, o.starts_at, o.opened_at, o.ended_at, o.branch,
    o.rule_name, o.classification, o.confidence
  FROM incidents i JOIN incidents o ON o.identity = i.identity AND o.starts_at < i.starts_at
  WHERE i.id = $id ORDER BY o.starts_at DESC LIMIT $limit`

export const toOccurrence = (row: Record<string, unknown>): Occurrence => ({
  id: row.id as string,
  status: row.status as string,
  startsAt: num(row.starts_at),
  openedAt: num(row.opened_at),
  endedAt: numOrNull(row.ended_at),
  branch: (row.branch as string | null) ?? null,
  ruleName: (row.rule_name as string | null) ?? null,
  classification: (row.classification as string | null) ?? null,
  confidence: (row.confidence as string | null) ?? null,
})

// Integer division of BIGINT (PostgreSQL) and INTEGER (SQLite) truncates alike: the UTC day.
export const incidentsPerDaySql = `SELECT opened_at / 86400000 AS day, coalesce(branch, '') AS branch, count(*) AS n
  FROM incidents WHERE opened_at >= $since AND opened_at < $until
  GROUP BY opened_at / 86400000, coalesce(branch, '') ORDER BY day, branch`

export const toDayCount = (row: Record<string, unknown>) => ({
  day: num(row.day),
  branch: row.branch as string,
  count: num(row.n),
})

const delayBucket = `CASE ${reportDelayBounds.map((bound, i) => `WHEN d < ${bound} THEN ${i}`).join(' ')} ELSE ${reportDelayBounds.length} END`

/** The diagnosis mail of each notification (first firing or re-fire), from its receipt to its sending. */
export const reportDelaysSql = `SELECT bucket, count(*) AS n FROM (
    SELECT ${delayBucket} AS bucket FROM (
      SELECT o.sent_at - e.received_at AS d FROM events e JOIN outbox o ON o.event_id = e.id
      WHERE e.received_at >= $since AND e.received_at < $until AND o.kind IN ('diagnosis', 'refire')
        AND o.sent_at IS NOT NULL) delays) buckets
  GROUP BY bucket ORDER BY bucket`

export const toBucketCount = (row: Record<string, unknown>) => ({ bucket: num(row.bucket), count: num(row.n) })

export const ruleDecisionsSql = `SELECT branch, sum(CASE WHEN opened_at >= $week THEN 1 ELSE 0 END) AS week, count(*) AS month
  FROM incidents WHERE opened_at >= $month AND branch IS NOT NULL GROUP BY branch`

export const toDecisions = (row: Record<string, unknown>) => ({
  branch: row.branch as string,
  week: num(row.week),
  month: num(row.month),
})
