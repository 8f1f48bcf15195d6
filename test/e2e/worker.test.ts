import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { secretCorpus } from '../fixtures/secret-corpus.js'
import { secretShapes } from '../fixtures/secret-shapes.js'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

const token = 'worker-e2e-token-000001'
const sections = [
  '1. SUMMARY',
  '2. ALERT',
  '3. DIAGNOSIS',
  '4. LOG EVIDENCE',
  '5. RUNTIME EVIDENCE',
  '6. RECOMMENDED ACTIONS',
  '7. PROVENANCE',
]

async function startService(env: Record<string, string>, cwd = mkdtempSync(join(tmpdir(), 'diag-worker-'))) {
  const service = spawnService(loopbackEnv(token, env), cwd)
  const url = await service.ready
  const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
  const post = async (payload: unknown) => {
    const res = await request(`${url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca,
      body: JSON.stringify(payload),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    })
    expect(res.status).toBe(202)
    return res.json()
  }
  const metric = async (name: string) => {
    const text = (await request(`${url}/metrics`, { ca })).text
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
  }
  const metricReaches = async (name: string, value: number, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs
    while ((await metric(name)) !== value) {
      if (Date.now() > deadline) throw new Error(`${name} never reached ${value}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  /**
   * Waits for the final state of everything sent so far: nothing queued or in processing,
   * and no mail of the incident pending. After that no further mail of it can appear, so
   * "exactly one" can be asserted without waiting for nothing.
   */
  const settled = async (incidentId: string) => {
    const pending = async () => {
      const text = (await request(`${url}/metrics`, { ca })).text
      const depth = (status: string) =>
        Number(new RegExp(`^diagnostic_queue_depth\\{status="${status}"\\} (\\S+)$`, 'm').exec(text)?.[1])
      const incident = await request(`${url}/api/v1/incidents/${incidentId}`, {
        ca,
        headers: { authorization: `Bearer ${token}` },
      })
      const delivery = incident.json().delivery as Array<{ status: string }>
      return depth('queued') + depth('processing') + delivery.filter((d) => d.status === 'pending').length
    }
    await waitFor(async () => (await pending()) === 0, 20_000, 'the queue and the outbox to settle')
  }
  return { service, cwd, url, ca, post, metric, metricReaches, settled }
}

describe('the worker end to end, with a real SMTP server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let svc: Awaited<ReturnType<typeof startService>>
  beforeAll(async () => {
    smtp = await startSmtp()
    svc = await startService({ DIAG_SMTP_URL: smtp.url, DIAG_MAIL_TO: 'oncall@example.com, sre@example.com' })
  })
  afterAll(async () => {
    svc.service.child.kill('SIGKILL')
    await smtp.close()
  })

  it('turns a firing alert into a 7-section diagnosis e-mail with the right branch', async () => {
    const answer = await svc.post(webhook([alert({ id: 'e2e0001', startsAt: '2026-11-22T04:56:00.000Z' })]))
    const eventId = answer.events[0].eventId
    const [mail] = await waitFor(
      () => smtp.mailsOf(eventId).length > 0 && smtp.mailsOf(eventId),
      20_000,
      'the diagnosis e-mail',
    )
    expect(mail?.headers.subject).toBe('[critical] AppServerDown on app-01: TD-02 JavaHeapExhausted (jvm_memory)')
    expect(mail?.headers['message-id']).toBe(`<${eventId}@diagnostic-service>`)
    expect(mail?.headers.to).toBe('oncall@example.com, sre@example.com')
    const positions = sections.map((heading) => mail?.text.indexOf(heading) ?? -1)
    expect(positions.every((p) => p >= 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    expect(mail?.text).toContain('>>')
    expect(mail?.text).toContain('java.lang.OutOfMemoryError: Java heap space')
    expect(mail?.text).toContain('Advisory only: no action was taken.')
    expect(mail?.html).toContain('<h2>7. Provenance</h2>')
    await svc.metricReaches('diagnostic_notifications_sent_total', 1)
  })

  it('diagnoses with a rule registered while running: the analysis thread gets the new catalogue', async () => {
    const rule = {
      branch: 'EXP-01',
      ruleName: 'ReportExportFailing',
      category: 'application_lifecycle',
      targetSource: 'local_file',
      // The message line: a pattern found only in stack frames matches nothing (docs/design.md).
      pattern: 'servlet [reportServlet] in context with path [/reports] threw exception',
      assessment: 'The report export path is where the heap ran out.',
      classification: 'PROBABLE_CAUSE',
      confidence: 'MEDIUM',
      recommendedActions: ['Page through the export instead of building it in memory.'],
    }
    const diagnosisOf = async (fingerprint: string, startsAt: string) => {
      const answer = await svc.post(webhook([alert({ id: fingerprint, startsAt })]))
      const eventId = answer.events[0].eventId
      const [mail] = await waitFor(
        () => smtp.mailsOf(eventId).length > 0 && smtp.mailsOf(eventId),
        20_000,
        'the e-mail',
      )
      return mail?.text ?? ''
    }
    // The analysis thread has the catalogue of before the rule...
    expect(await diagnosisOf('e2e0010', '2026-11-22T04:58:30.000Z')).not.toContain('EXP-01')
    const registered = await request(`${svc.url}/api/v1/rules`, {
      method: 'POST',
      ca: svc.ca,
      body: JSON.stringify(rule),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    })
    expect(registered.status).toBe(201)
    // ...and the very next event is matched with it.
    const text = await diagnosisOf('e2e0011', '2026-11-22T04:59:00.000Z')
    // A custom probable cause (60) outranks the heap exhaustion that one uncorroborated line
    // makes a probable cause too (50).
    expect(text).toMatch(/Primary finding: EXP-01 ReportExportFailing/)
    expect(text).toMatch(/Other matching rules \(ranked\):[\s\S]*TD-02 JavaHeapExhausted/)
    expect(text).toMatch(/Matched by EXP-01 in \S+:/)
    expect(text).toContain('com.example.reports.ExportService.render(ExportService.java:212)')
  })

  it('never lets a secret of the logs reach the store or the mail', async () => {
    // examples/logs/app-01/catalina.out logs -Djavax.net.ssl.keyStorePassword=changeit-prod-4711
    const answer = await svc.post(webhook([alert({ id: 'e2e0002', startsAt: '2026-11-22T04:57:00.000Z' })]))
    await waitFor(() => smtp.mailsOf(answer.events[0].eventId).length > 0, 20_000, 'the e-mail')
    for (const mail of smtp.mails) expect(mail.content).not.toContain('changeit-prod-4711')
    const data = join(svc.cwd, 'data')
    for (const file of readdirSync(data).filter((f) => f.startsWith('diagnostic.db'))) {
      expect(readFileSync(join(data, file)).includes('changeit-prod-4711')).toBe(false)
    }
  })

  it('sends no second e-mail for a duplicate', async () => {
    const payload = webhook([alert({ id: 'e2e0003', startsAt: '2026-11-22T04:58:00.000Z' })])
    const first = await svc.post(payload)
    await waitFor(() => smtp.mailsOf(first.events[0].eventId).length > 0, 20_000, 'the e-mail')
    const again = await svc.post(payload)
    expect(again.duplicates).toBe(1)
    await svc.settled(first.events[0].incidentId)
    expect(smtp.mailsOf(first.events[0].eventId)).toHaveLength(1)
    expect(smtp.mailsOf(again.events[0].eventId)).toHaveLength(1)
  })

  it('answers a resolution with a recovery e-mail threaded under the diagnosis', async () => {
    const firing = alert({ id: 'e2e0004', startsAt: '2026-11-22T04:59:00.000Z' })
    const opened = await svc.post(webhook([firing]))
    const firingId = opened.events[0].eventId
    await waitFor(() => smtp.mailsOf(firingId).length > 0, 20_000, 'the diagnosis')
    const resolved = await svc.post(
      webhook([{ ...firing, status: 'resolved', endsAt: '2026-11-22T05:30:00.000Z' }], { status: 'resolved' }),
    )
    const [recovery] = await waitFor(
      () => smtp.mailsOf(resolved.events[0].eventId).length > 0 && smtp.mailsOf(resolved.events[0].eventId),
      20_000,
      'the recovery',
    )
    // The diagnosis of the firing alert is the headline: EXP-01, registered by the test above,
    // a custom probable cause (60) ranked before the one uncorroborated heap line (50).
    expect(recovery?.headers.subject).toMatch(
      /^\[RESOLVED\] AppServerDown on app-01: EXP-01 ReportExportFailing, open \d+[dhms]/,
    )
    expect(recovery?.headers['in-reply-to']).toBe(`<${firingId}@diagnostic-service>`)
    expect(recovery?.text).toContain('The diagnosis was EXP-01 ReportExportFailing')
  })

  it('records a resolution without an incident and sends nothing', async () => {
    const lonely = await svc.post(
      webhook([alert({ id: 'e2e0005', status: 'resolved', startsAt: '2026-11-22T05:00:00.000Z' })], {
        status: 'resolved',
      }),
    )
    // Nothing goes to the worker, so no mail can follow; the incident records the end.
    expect(lonely).toMatchObject({ received: 1, queued: 0, duplicates: 0 })
    expect(lonely.events[0].transition).toBe('unmatched_resolution')
    const incident = await request(`${svc.url}/api/v1/incidents/${lonely.events[0].incidentId}`, {
      ca: svc.ca,
      headers: { authorization: `Bearer ${token}` },
    })
    expect(incident.json()).toMatchObject({ status: 'resolved', diagnosis: null, delivery: [] })
  })

  it('diagnoses a container OOM kill from the spool (AH-01), and TD-07 for an unknown instance', async () => {
    const oom = await svc.post(
      webhook([alert({ id: 'e2e0006', startsAt: '2026-11-22T04:57:30.000Z' }, { appserver_instance: 'app-02' })]),
    )
    const [mail] = await waitFor(
      () => smtp.mailsOf(oom.events[0].eventId).length > 0 && smtp.mailsOf(oom.events[0].eventId),
      20_000,
      'AH-01',
    )
    expect(mail?.headers.subject).toBe('[critical] AppServerDown on app-02: AH-01 ContainerOomKilled (jvm_memory)')
    const unknown = await svc.post(webhook([alert({ id: 'e2e0007' }, { appserver_instance: 'app-99' })]))
    const [none] = await waitFor(
      () => smtp.mailsOf(unknown.events[0].eventId).length > 0 && smtp.mailsOf(unknown.events[0].eventId),
      20_000,
      'TD-07',
    )
    expect(none?.headers.subject).toBe('[critical] AppServerDown on app-99: TD-07 EvidenceUnavailable (general)')
    expect(none?.text).toContain('is not in the inventory')
  })

  it('changes nothing but the text shown for hostile labels', async () => {
    const hostile = alert(
      { id: 'e2e0008', annotations: { summary: '<img src=x onerror=alert(1)>' } },
      {
        appserver_instance: '../../etc/passwd',
        alertname: 'Evil\r\nBcc: attacker@example.com',
        host: '<script>alert(1)</script>',
        check: 'x'.repeat(10_000),
      },
    )
    const answer = await svc.post(webhook([hostile]))
    const [mail] = await waitFor(
      () => smtp.mailsOf(answer.events[0].eventId).length > 0 && smtp.mailsOf(answer.events[0].eventId),
      20_000,
      'the e-mail',
    )
    expect(mail?.headers.bcc).toBeUndefined()
    expect(mail?.headers.subject).toBe(
      '[critical] Evil Bcc: attacker@example.com on ../../etc/passwd: TD-07 EvidenceUnavailable (general)',
    )
    expect(mail?.html).not.toContain('<script>')
    expect(mail?.html).not.toContain('<img src=x')
    expect(mail?.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(mail?.content).not.toContain('root:x:0:0')
  })

  it('links an alert source only when it is an http(s) URL', async () => {
    const sources = [
      'javascript:alert(document.cookie)',
      'JaVaScRiPt:alert(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'vbscript:msgbox(1)',
      'https://prometheus.example:9090/graph?g0.expr=up&g0.tab=1',
    ]
    const answer = await svc.post(webhook(sources.map((generatorURL, i) => alert({ id: `e2elink${i}`, generatorURL }))))
    const ids: string[] = answer.events.map((e: { eventId: string }) => e.eventId)
    const mails = await waitFor(
      () => ids.every((id) => smtp.mailsOf(id).length > 0) && ids.map((id) => smtp.mailsOf(id)[0]),
      20_000,
      'the e-mails',
    )
    for (const mail of mails.slice(0, 4)) {
      expect(mail?.html).not.toMatch(/javascript:|vbscript:|data:text/i)
      expect(mail?.text).not.toMatch(/javascript:|vbscript:|data:text/i)
    }
    expect(mails[4]?.html).toContain(
      '<a href="https://prometheus.example:9090/graph?g0.expr&#x3D;up&amp;g0.tab&#x3D;1">',
    )
  })
})

describe('delivery faults (D24)', () => {
  it('retries while SMTP is down, then fails for good and counts it', async () => {
    const svc = await startService({
      DIAG_SMTP_URL: 'smtp://127.0.0.1:1',
      DIAG_MAIL_MAX_ATTEMPTS: '3',
      DIAG_MAIL_RETRY_BASE_MS: '50',
    })
    try {
      await svc.post(webhook([alert({ id: 'down0001' })]))
      await svc.metricReaches('diagnostic_notifications_failed_total', 1)
      expect(await svc.metric('diagnostic_notifications_sent_total')).toBe(0)
    } finally {
      svc.service.child.kill('SIGKILL')
    }
  })

  it('does not retry a permanent 5xx refusal', async () => {
    const smtp = await startSmtp({ reject: 550 })
    const svc = await startService({
      DIAG_SMTP_URL: smtp.url,
      DIAG_MAIL_MAX_ATTEMPTS: '5',
      DIAG_MAIL_RETRY_BASE_MS: '50',
    })
    try {
      await svc.post(webhook([alert({ id: 'rej00001' })]))
      await svc.metricReaches('diagnostic_notifications_failed_total', 1)
      const conn = new Database(join(svc.cwd, 'data', 'diagnostic.db'), { readonly: true })
      expect(conn.prepare('SELECT status, attempts FROM outbox').all()).toEqual([{ status: 'failed', attempts: 1 }])
      conn.close()
    } finally {
      svc.service.child.kill('SIGKILL')
      await smtp.close()
    }
  })
})

describe('a worker killed mid-event (D25)', () => {
  it('re-processes the event after its lease expires and sends exactly one report', async () => {
    // A health endpoint that never answers holds the event in processing.
    let probed = false
    const hung = createServer(() => {
      probed = true
    })
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve))
    const smtp = await startSmtp()
    const cwd = mkdtempSync(join(tmpdir(), 'diag-killed-'))
    mkdirSync(join(cwd, 'inv'))
    writeFileSync(
      join(cwd, 'inv', 'inventory.json'),
      JSON.stringify({
        instances: { 'app-01': { healthUrl: `http://127.0.0.1:${(hung.address() as AddressInfo).port}/health` } },
      }),
    )
    const env = {
      DIAG_SMTP_URL: smtp.url,
      DIAG_INVENTORY: join(cwd, 'inv', 'inventory.json'),
      DIAG_HTTP_TIMEOUT_MS: '3000',
      DIAG_WORKER_LEASE_MS: '1500',
    }
    try {
      const first = await startService(env, cwd)
      const answer = await first.post(webhook([alert({ id: 'kill0001' })]))
      await waitFor(() => probed, 20_000, 'the probe (the event is claimed and mid-processing)')
      first.service.child.kill('SIGKILL')
      await first.service.exited
      expect(smtp.mails).toHaveLength(0)

      const second = await startService(env, cwd)
      try {
        const eventId = answer.events[0].eventId
        await waitFor(() => smtp.mailsOf(eventId).length > 0, 30_000, 'the report')
        await second.metricReaches('diagnostic_stale_locks_recovered_total', 1)
        await second.settled(answer.events[0].incidentId)
        expect(smtp.mailsOf(eventId)).toHaveLength(1)
        expect(smtp.mails[0]?.headers.subject).toContain('AH-05 HealthProbeUnresponsive')
      } finally {
        second.service.child.kill('SIGKILL')
      }
    } finally {
      hung.closeAllConnections()
      hung.close()
      await smtp.close()
    }
  }, 60_000)
})

describe('the redaction corpus end to end (D15)', () => {
  it('lets no secret of the corpus reach the database files or the e-mail', async () => {
    const smtp = await startSmtp()
    const cwd = mkdtempSync(join(tmpdir(), 'diag-corpus-'))
    mkdirSync(join(cwd, 'inv'))
    const samples = [...secretCorpus, ...secretShapes]
    const log = [...samples.map((sample) => sample.line), 'java.lang.OutOfMemoryError: Java heap space'].join('\n')
    writeFileSync(join(cwd, 'inv', 'server.log'), `${log}\n`)
    writeFileSync(
      join(cwd, 'inv', 'inventory.json'),
      JSON.stringify({ instances: { 'app-01': { logs: ['server.log'] } } }),
    )
    const svc = await startService({ DIAG_SMTP_URL: smtp.url, DIAG_INVENTORY: join(cwd, 'inv', 'inventory.json') }, cwd)
    try {
      const answer = await svc.post(webhook([alert({ id: 'corpus01' })]))
      const eventId = answer.events[0].eventId
      const [mail] = await waitFor(() => smtp.mailsOf(eventId).length > 0 && smtp.mails, 20_000, 'the e-mail')
      // The last lines of the corpus stand next to the matched line, so they are shown too.
      expect(mail?.headers.subject).toContain('TD-02 JavaHeapExhausted')
      expect(mail?.text).toContain('[REDACTED]')
      const stored = readdirSync(join(cwd, 'data'))
        .filter((f) => f.startsWith('diagnostic.db'))
        .map((f) => readFileSync(join(cwd, 'data', f)).toString('latin1'))
        .join('')
      const auth = { ca: svc.ca, headers: { authorization: `Bearer ${token}` } }
      const list = (await request(`${svc.url}/api/v1/incidents`, auth)).json()
      const detail = (await request(`${svc.url}/api/v1/incidents/${list.incidents[0]?.id}`, auth)).text
      const api = `${JSON.stringify(list)}${detail}`
      expect(api).toContain('corpus01')
      for (const sample of samples) {
        for (const secret of sample.secrets) {
          expect({
            sample: sample.name,
            inMail: mail?.content.includes(secret),
            inHtml: mail?.html.includes(secret),
            inText: mail?.text.includes(secret),
            inStore: stored.includes(secret),
            inApi: api.includes(secret),
          }).toEqual({
            sample: sample.name,
            inMail: false,
            inHtml: false,
            inText: false,
            inStore: false,
            inApi: false,
          })
        }
      }
    } finally {
      svc.service.child.kill('SIGKILL')
      await smtp.close()
    }
  }, 60_000)
})
