import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { lifecycleService } from '../helpers/lifecycle.js'

// Issue 26, point 6: labels, annotations, generatorURL and the group key are redacted with
// the rules of the logs, in what is stored, in the incidents API and in the mail.

const secrets = ['S3cretInLabel', 'hunter2-annotation', 'Tok3nInUrl', 'gr0upKeySecret', 'pl41nValue']

describe('secrets in what the alert carries', () => {
  let s: Awaited<ReturnType<typeof lifecycleService>>
  beforeAll(async () => {
    s = await lifecycleService()
  })
  afterAll(() => s.close())

  it('never stores, shows or mails them; two alerts differing only in a secret stay two', async () => {
    const leaky = (id: string, password: string) =>
      alert(
        {
          id,
          annotations: {
            summary: 'Health check failing',
            description: `retrying with spring.datasource.password=hunter2-annotation\nsecond line`,
          },
          generatorURL: 'https://grafana:Tok3nInUrl@prometheus.example/graph?g0.expr=up',
        },
        { datasource: 'jdbc:postgresql://app:S3cretInLabel@db:5432/orders', db_password: password },
      )
    const payload = webhook([leaky('leak', 'pl41nValue'), leaky('leak', 'another-pl41nValue')], {
      groupKey: '{}:{db_password="gr0upKeySecret"}',
    })
    const events = await s.post(payload)
    expect(events.map((e) => e.transition)).toEqual(['opened', 'opened'])
    expect(events[0]?.incidentId).not.toBe(events[1]?.incidentId)
    await s.settled()

    const stored = s.db.prepare('SELECT alert, group_key FROM events').all() as Array<Record<string, string>>
    const detail = await s.t.call('GET', `/api/v1/incidents/${events[0]?.incidentId}`)
    const list = await s.t.call('GET', '/api/v1/incidents')
    const mails = s.mailsOfIncident(events[0]?.incidentId as string)
    expect(mails).toHaveLength(1)
    for (const [where, text] of [
      ['stored', JSON.stringify(stored)],
      ['incident detail', detail.text],
      ['incident list', list.text],
      ['mail text', mails[0]?.text ?? ''],
      ['mail html', mails[0]?.html ?? ''],
    ] as const) {
      for (const secret of secrets) expect(text, `${secret} in the ${where}`).not.toContain(secret)
    }
    // What is not a secret is still there to read.
    expect(mails[0]?.text).toContain('second line')
    expect(mails[0]?.text).toContain('prometheus.example/graph')
    expect(detail.text).toContain('[REDACTED]')
  })
})
