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

// The bound on each event's log analysis: CPU time of its analysis thread
// (docs/design.md, "A bound on every analysis"). Registration now refuses costly
// expressions, but a catalogue can hold one from before that check: such a rule is written
// into the database here, as an older version would have stored it. Its backtracking on the
// slow log never ends, so it passes the bound however fast or loaded the host is, while
// the fast log costs a few milliseconds of the 2 s: no outcome depends on the host's speed.
// The analysis thread is terminated at the bound and replaced; the event is still
// diagnosed and mailed, with the timeout as an evidence gap, and counted. Events that wait
// for the one thread meanwhile (8 at once on 1 thread) are neither charged for the wait nor
// failed with the thread.
const token = 'analysis-timeout-token-01'

describe('the bound on one analysis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-analysis-timeout-'))
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let service: ReturnType<typeof spawnService>
  const env = () =>
    loopbackEnv(token, {
      DIAG_SMTP_URL: smtp.url,
      DIAG_INVENTORY: join(dir, 'inventory.json'),
      DIAG_ANALYSIS_TIMEOUT_MS: '2000',
      DIAG_ANALYSIS_THREADS: '1',
      DIAG_WORKER_CONCURRENCY: '8',
    })

  beforeAll(async () => {
    // "Timeout" and 40 letters: the old rule tries every way to split them into words
    // (2^39) before it fails for want of a digit.
    writeFileSync(join(dir, 'slow.log'), `Timeout ${'a'.repeat(40)}\n`)
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
    insert.run('OLD-01', 'CostlyOldRule', '/Timeout( ?[a-z]+)+[0-9]/', new Date().toISOString())
    db.close()
    service = spawnService(env(), dir)
    await service.ready
  })
  afterAll(async () => {
    service.child.kill('SIGKILL')
    await smtp.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const ca = () => readFileSync(join(dir, 'data', 'tls', 'ca.pem'))
  const post = async (alerts: [instance: string, fingerprint: string][]) => {
    const res = await request(`${service.url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: ca(),
      body: JSON.stringify(
        webhook(alerts.map(([instance, id]) => alert({ id: `${id}-${instance}` }, { appserver_instance: instance }))),
      ),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    })
    expect(res.status).toBe(202)
    return (res.json().events as { eventId: string }[]).map((event) => event.eventId)
  }
  const mailFor = (eventId: string) => waitFor(() => smtp.mailsOf(eventId)[0], 30_000, 'the e-mail')
  const metrics = async () => (await request(`${service.url}/metrics`, { ca: ca() })).text

  it('stops a slow analysis at the bound, reports the gap, counts it, and goes on with a new thread', async () => {
    // One webhook, so that the fast events wait for the one thread behind the slow one.
    const [slowId, ...fastIds] = await post([
      ['app-slow', 'slow1'],
      ['app-fast', 'fast1'],
      ['app-fast', 'fast2'],
      ['app-fast', 'fast3'],
    ])
    for (const id of fastIds) {
      const fast = await mailFor(id as string)
      expect(fast.text).not.toContain('not read')
      expect(fast.headers.subject).toContain('TD-02 JavaHeapExhausted')
    }
    const slow = await mailFor(slowId as string)
    expect(slow.text).toContain('slow.log: not read: the log analysis used more than 2000 ms of CPU time')
    const counted = await scrapeUntil(metrics, /^diagnostic_analysis_timeouts_total\{bound="cpu"\} 1$/m)
    // Only the slow one was stopped; none was failed for the thread it waited for.
    expect(counted).toMatch(/^diagnostic_analysis_timeouts_total\{bound="wall"\} 0$/m)
    expect(counted).toMatch(/^diagnostic_worker_failures_total 0$/m)
    const [after] = await post([['app-fast', 'fast4']])
    expect((await mailFor(after as string)).headers.subject).toContain('TD-02 JavaHeapExhausted')
  })
})
