import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

    const stored = await s.rows('SELECT alert, group_key FROM events')
    const detail = await s.t.call('GET', `/api/v1/incidents/${events[0]?.incidentId}`)
    const list = await s.t.call('GET', '/api/v1/incidents')
    const mails = await s.mailsOfIncident(events[0]?.incidentId as string)
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

describe('optional masking of personal data (DIAG_REDACT_CARD_NUMBERS, DIAG_REDACT_EMAILS)', () => {
  const card = '4111 1111 1111 1111' // a test number that passes the Luhn check
  const email = 'jane.doe@example.org'
  const logLines = [
    `2026-11-22 05:00:00 ERROR payment failed for card ${card} of ${email}`,
    '2026-11-22 05:00:01 SEVERE java.lang.OutOfMemoryError: Java heap space',
  ]

  async function serviceWith(env: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), 'diag-personal-'))
    mkdirSync(join(dir, 'logs'))
    writeFileSync(join(dir, 'logs', 'app.log'), `${logLines.join('\n')}\n`)
    const inventory = join(dir, 'inventory.json')
    writeFileSync(inventory, JSON.stringify({ instances: { 'pay-01': { logs: ['logs/app.log'] } } }))
    return lifecycleService({ DIAG_INVENTORY: inventory, ...env })
  }

  async function reportOf(s: Awaited<ReturnType<typeof lifecycleService>>) {
    const [event] = await s.post(
      webhook([
        alert(
          { id: 'personal', annotations: { summary: `customer ${email} paid with ${card}` } },
          { appserver_instance: 'pay-01' },
        ),
      ]),
    )
    await s.settled()
    const stored = JSON.stringify(await s.rows('SELECT alert FROM events'))
    const mail = (await s.mailsOfIncident(event?.incidentId as string))[0]
    return `${stored}\n${mail?.text}\n${mail?.html}`
  }

  it('keeps card numbers and addresses by default', async () => {
    const s = await serviceWith({})
    try {
      const everything = await reportOf(s)
      expect(everything).toContain(email)
      expect(everything).toContain(card)
    } finally {
      await s.close()
    }
  })

  it('masks them in logs, labels, annotations and the mail when asked', async () => {
    const s = await serviceWith({ DIAG_REDACT_CARD_NUMBERS: 'on', DIAG_REDACT_EMAILS: 'on' })
    try {
      const everything = await reportOf(s)
      expect(everything).not.toContain(card)
      expect(everything).not.toContain('jane.doe')
      expect(everything).toContain('[REDACTED]-CARD')
      // The domain stays readable, and so does the log line the diagnosis rests on.
      expect(everything).toContain('@example.org')
      expect(everything).toContain('OutOfMemoryError')
    } finally {
      await s.close()
    }
  })
})
