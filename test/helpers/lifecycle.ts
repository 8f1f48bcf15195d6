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
  /** The first column of the first row: a count, on either storage. */
  const count = async (sql: string, ...params: unknown[]) =>
    Number(Object.values((await t.rows(sql, ...params))[0] ?? {})[0])
  return {
    t,
    smtp,
    rows: t.rows,
    count,
    async post(payload: unknown): Promise<PostedEvent[]> {
      const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: payload })
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}: ${res.text}`)
      return res.json().events
    },
    /** Waits until the queue is empty and every mail of the outbox reached the SMTP server. */
    async settled(timeoutMs = 30_000) {
      await waitFor(
        async () =>
          (await count("SELECT count(*) FROM queue_items WHERE status IN ('queued', 'processing')")) === 0 &&
          (await count("SELECT count(*) FROM outbox WHERE status = 'pending'")) === 0 &&
          (await count("SELECT count(*) FROM outbox WHERE status = 'sent'")) === smtp.mails.length,
        timeoutMs,
        'the queue and the outbox to drain',
      )
    },
    /** The mails of the events of one incident, in the order the SMTP server received them. */
    async mailsOfIncident(incidentId: string): Promise<ReceivedMail[]> {
      const events = new Set(
        (await t.rows('SELECT id FROM events WHERE incident_id = ?', incidentId)).map((row) => String(row.id)),
      )
      return smtp.mails.filter((m) => events.has(m.headers['x-diagnostic-event'] ?? ''))
    },
    async incident(id: string) {
      return (await t.rows('SELECT * FROM incidents WHERE id = ?', id))[0] as Record<string, unknown>
    },
    async close() {
      await t.close()
      await smtp.close()
    },
  }
}
