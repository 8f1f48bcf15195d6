import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { scrapeUntil } from '../helpers/metrics.js'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// A wall-clock bound on each event's log analysis. Registration now
// refuses costly expressions, but a catalogue can hold one from before that check: such
// rules are written into the database here, as an older version would have stored them.
// The analysis thread is terminated at the bound and replaced; the event is still
// diagnosed and mailed, with the timeout as an evidence gap, and counted.
const token = 'analysis-timeout-token-01'

describe('the bound on one analysis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-analysis-timeout-'))
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let service: ReturnType<typeof spawnService>
  const env = () =>
    loopbackEnv(token, {
      DIAG_SMTP_URL: smtp.url,
      DIAG_INVENTORY: join(dir, 'inventory.json'),
      DIAG_ANALYSIS_TIMEOUT_MS: '50',
    })

  beforeAll(async () => {
    // Lines of 1,000 characters full of "Timeout ": each costly rule reads to the end of
    // the line after every occurrence.
    const line = `${'Timeout '.repeat(125)}\n`
    writeFileSync(join(dir, 'slow.log'), line.repeat(Math.floor((512 * 1024) / line.length)))
    writeFileSync(join(dir, 'fast.log'), 'java.lang.OutOfMemoryError: Java heap space\n')
    writeFileSync(
      join(dir, 'inventory.json'),
      JSON.stringify({ instances: { 'app-slow': { logs: ['slow.log'] }, 'app-fast': { logs: ['fast.log'] } } }),
    )
    smtp = await startSmtp()
    const first = spawnService(env(), dir)
    await first.ready
    first.child.kill('SIGTERM')
    await first.exited
    const db = new Database(join(dir, 'data', 'diagnostic.db'))
    const insert = db.prepare(`INSERT INTO rules (rule_id, branch, rule_name, category, target_source, pattern,
      assessment, classification, confidence, recommended_actions, created_by, principal, created_at)
      VALUES (NULL, ?, ?, 'general', 'local_file', ?, 'Costly.', 'probable_cause', 'medium', '["Look."]', 'old', 'old', ?)`)
    for (const [i, pattern] of ['/Timeout.{1000}/', '/Timeout.{999}x/', '/Timeout .{990}y/'].entries()) {
      insert.run(`OLD-0${i}`, `CostlyOldRule${i}`, pattern, new Date().toISOString())
    }
    db.close()
    service = spawnService(env(), dir)
    await service.ready
  })
  afterAll(async () => {
    service.child.kill('SIGKILL')
    await smtp.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const post = async (instance: string, fingerprint: string) => {
    const res = await request(`${service.url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: readFileSync(join(dir, 'data', 'tls', 'ca.pem')),
      body: JSON.stringify(webhook([alert({ id: fingerprint }, { appserver_instance: instance })])),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    })
    expect(res.status).toBe(202)
    return res.json().events[0].eventId as string
  }
  const mailFor = (eventId: string) => waitFor(() => smtp.mailsOf(eventId)[0], 30_000, 'the e-mail')

  it('stops a slow analysis at the bound, reports the gap, counts it, and goes on with a new thread', async () => {
    const slow = await mailFor(await post('app-slow', 'slow1'))
    expect(slow.text).toContain('slow.log: not read: the log analysis took longer than 50 ms')
    const ca = readFileSync(join(dir, 'data', 'tls', 'ca.pem'))
    await scrapeUntil(
      async () => (await request(`${service.url}/metrics`, { ca })).text,
      /^diagnostic_analysis_timeouts_total [1-9]/m,
    )
    const fast = await mailFor(await post('app-fast', 'fast1'))
    expect(fast.headers.subject).toContain('TD-02 JavaHeapExhausted')
  })
})
