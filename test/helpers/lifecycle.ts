import { build, type TestService } from './build.js'
import { type ReceivedMail, startSmtp, waitFor } from './smtp.js'

export interface PostedEvent {
  eventId: string
  incidentId: string
  transition: string
  duplicate: boolean
  fingerprint: string
}

/** The whole service in this process with a real SMTP server, for incident lifecycles. */
export async function lifecycleService(env: Record<string, string> = {}) {
  const smtp = await startSmtp()
  const t: TestService = await build({ DIAG_SMTP_URL: smtp.url, DIAG_MAIL_TO: 'oncall@example.com', ...env })
  const db = t.service.db
  const count = (sql: string, ...params: unknown[]) =>
    Number(
      db
        .prepare(sql)
        .pluck()
        .get(...params),
    )
  return {
    t,
    smtp,
    db,
    count,
    async post(payload: unknown): Promise<PostedEvent[]> {
      const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: payload })
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}: ${res.text}`)
      return res.json().events
    },
    /** Waits until the queue is empty and every mail of the outbox reached the SMTP server. */
    async settled(timeoutMs = 30_000) {
      await waitFor(
        () =>
          count("SELECT count(*) FROM queue_items WHERE status IN ('queued', 'processing')") === 0 &&
          count("SELECT count(*) FROM outbox WHERE status = 'pending'") === 0 &&
          count("SELECT count(*) FROM outbox WHERE status = 'sent'") === smtp.mails.length,
        timeoutMs,
        'the queue and the outbox to drain',
      )
    },
    /** The mails of the events of one incident, in the order the SMTP server received them. */
    mailsOfIncident(incidentId: string): ReceivedMail[] {
      const events = new Set(
        db
          .prepare('SELECT id FROM events WHERE incident_id = ?')
          .pluck()
          .all(incidentId)
          .map((id) => String(id)),
      )
      return smtp.mails.filter((m) => events.has(m.headers['x-diagnostic-event'] ?? ''))
    },
    incident(id: string) {
      return db.prepare('SELECT * FROM incidents WHERE id = ?').get(id) as Record<string, unknown>
    },
    async close() {
      await t.close()
      await smtp.close()
    },
  }
}
