import {
  type ConsoleSession,
  type IncidentMail,
  type IncidentTimeline,
  type Occurrence,
  reportDelayBounds,
  type TimelineEvent,
} from './console-port.js'

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

export const timelineSql = {
  incident: `SELECT starts_at, opened_at, ended_at, closed_at, last_heard_at FROM incidents WHERE id = $id`,
  // One row per notification with its queue item, its result and its mail (each at most one per event).
  events: `SELECT e.id, e.status, e.transition, e.received_at, e.principal, e.receiver,
      q.status AS queue_status, q.attempts AS queue_attempts, q.created_at AS queued_at, q.updated_at AS queue_updated_at,
      r.kind AS result_kind, r.created_at AS result_at,
      o.kind AS mail_kind, o.status AS mail_status, o.attempts AS mail_attempts, o.created_at AS mail_created_at,
      o.sent_at AS mail_sent_at
    FROM events e LEFT JOIN queue_items q ON q.event_id = e.id LEFT JOIN results r ON r.event_id = e.id
      LEFT JOIN outbox o ON o.event_id = e.id
    WHERE e.incident_id = $id ORDER BY e.received_at, e.id LIMIT $limit`,
}

function timelineEvent(row: Record<string, unknown>): TimelineEvent {
  return {
    id: row.id as string,
    status: row.status as TimelineEvent['status'],
    transition: (row.transition as string | null) ?? null,
    receivedAt: num(row.received_at),
    principal: row.principal as string,
    receiver: row.receiver as string,
    queue:
      row.queue_status === null || row.queue_status === undefined
        ? null
        : {
            status: row.queue_status as string,
            attempts: num(row.queue_attempts),
            queuedAt: num(row.queued_at),
            updatedAt: num(row.queue_updated_at),
          },
    result: row.result_kind ? { kind: row.result_kind as string, at: num(row.result_at) } : null,
    mail: row.mail_kind
      ? {
          kind: row.mail_kind as string,
          status: row.mail_status as string,
          attempts: num(row.mail_attempts),
          createdAt: num(row.mail_created_at),
          sentAt: numOrNull(row.mail_sent_at),
        }
      : null,
  }
}

/** The timeline from the incident's row and its events' rows (the limit plus one read). */
export function toTimeline(
  incident: Record<string, unknown> | undefined,
  events: Array<Record<string, unknown>>,
  limit: number,
): IncidentTimeline | undefined {
  if (!incident) return undefined
  return {
    startsAt: num(incident.starts_at),
    openedAt: num(incident.opened_at),
    endedAt: numOrNull(incident.ended_at),
    closedAt: numOrNull(incident.closed_at),
    lastHeardAt: numOrNull(incident.last_heard_at),
    events: events.slice(0, limit).map(timelineEvent),
    more: events.length > limit,
  }
}

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
