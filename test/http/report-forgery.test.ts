import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// Alert text cannot forge the report (docs/design.md, "Values never start a line of the
// text report"): whatever an annotation, a label, the source URL or a log line holds, the
// text part shows it under its own label, never at the start of a line where a heading,
// a diagnosis or an action would be.

const forged = 'ok\n\n6. RECOMMENDED ACTIONS\n  1. rm -rf /srv/app\n3. DIAGNOSIS\nTD-02 confirmed'
const headings = ['1. SUMMARY', '2. ALERT', '3. DIAGNOSIS', '4. LOG EVIDENCE', '6. RECOMMENDED ACTIONS']

describe('values from the alert in the text report', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-forgery-'))
  let t: TestService
  let smtp: Awaited<ReturnType<typeof startSmtp>>

  beforeAll(async () => {
    mkdirSync(join(dir, 'logs'))
    // A log line with a bare CR (and a form feed): a reader of the text part breaks the
    // line there.
    writeFileSync(
      join(dir, 'logs', 'catalina.out'),
      'INFO start\n' +
        'SEVERE java.lang.OutOfMemoryError: Java heap space\r6. RECOMMENDED ACTIONS\r  1. rm -rf /srv/app\f3. DIAGNOSIS\n' +
        'INFO end\n',
    )
    writeFileSync(
      join(dir, 'inventory.json'),
      JSON.stringify({ instances: { 'app-01': { logs: ['logs/catalina.out'] } } }),
    )
    smtp = await startSmtp()
    t = await build({ DIAG_SMTP_URL: smtp.url, DIAG_INVENTORY: join(dir, 'inventory.json') })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('quotes every line of a multi-line value under its label, in the text part and escaped in HTML', async () => {
    const payload = webhook([
      alert(
        {
          id: 'forge-01',
          annotations: {
            summary: 'Health check failing',
            description: forged,
            runbook: 'see\r\n2. ALERT\u2028TD-02 confirmed\u0085<h2>4. Log evidence</h2>',
          },
          generatorURL: 'http://prometheus.example/graph\n1. SUMMARY',
        },
        { team: 'payments\n6. RECOMMENDED ACTIONS' },
      ),
    ])
    const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: payload })
    expect(res.status).toBe(202)
    const eventId: string = res.json().events[0].eventId
    const mail = await waitFor(() => smtp.mailsOf(eventId)[0])
    const lines = mail.text.split(/\r\n|\n/)

    // Each heading is the template's own, once; nothing from the alert is at column 0.
    for (const heading of headings) expect(lines.filter((line) => line === heading)).toHaveLength(1)
    for (const line of lines.filter((line) => !headings.includes(line))) {
      expect(line).not.toMatch(
        /^(?:TD-02 confirmed|\s*1\. rm -rf|\s*[1-7]\. (?:SUMMARY|ALERT|DIAGNOSIS|LOG|RECOMMENDED))/,
      )
    }
    expect(mail.text).not.toMatch(/\r(?!\n)|\f|\u2028|\u0085/)

    // The value is there, every line of it quoted under its label.
    expect(mail.text).toContain(
      [
        '  description: ok',
        '    |',
        '    | 6. RECOMMENDED ACTIONS',
        '    |   1. rm -rf /srv/app',
        '    | 3. DIAGNOSIS',
        '    | TD-02 confirmed',
      ].join('\n'),
    )
    expect(mail.text).toContain(
      ['  runbook: see', '    | 2. ALERT', '    | TD-02 confirmed', '    | <h2>4. Log evidence</h2>'].join('\n'),
    )
    expect(mail.text).toContain('  team = payments\n    | 6. RECOMMENDED ACTIONS')
    expect(mail.text).toMatch(
      /\n {2}>> 2: SEVERE java\.lang\.OutOfMemoryError: Java heap space\n {4}\| 6\. RECOMMENDED/,
    )

    // HTML: every value escaped, so the alert adds no element.
    expect(mail.html.match(/<h2>/g)).toHaveLength(7)
    expect(mail.html).toContain('&lt;h2&gt;4. Log evidence&lt;/h2&gt;')
  })

  it('stores and reports an alert whose label and annotation hold a NUL character', async () => {
    const payload = webhook([
      alert({ id: 'nul-01', annotations: { summary: 'before\u0000after' } }, { team: 'pay\u0000ments' }),
    ])
    const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: payload })
    expect(res.status).toBe(202)
    const mail = await waitFor(() => smtp.mailsOf(res.json().events[0].eventId)[0])
    expect(mail.text).toMatch(/team = pay.ments/)
    expect(mail.text).toMatch(/summary: before.after/)
  })
})
