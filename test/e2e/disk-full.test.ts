import { execFileSync } from 'node:child_process'
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { scrapeUntil } from '../helpers/metrics.js'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// The data directory on a real file system that fills up: a small tmpfs mounted by the test.
// Every path that writes meets ENOSPC / SQLITE_FULL: the webhook, rule registration, the
// worker's claim and its report commit, and the outbox. The service stays up, says why it is
// not ready, and once space returns every acknowledged alert gets one report
// (docs/operations.md).

const token = 'disk-full-e2e-token-00001'

/** Fills the file system under `file` until it refuses another byte. */
function fill(file: string): void {
  const fd = openSync(file, 'w')
  try {
    // Chunks first, then small writes for the last partial block.
    for (const size of [64 * 1024, 512]) {
      const chunk = Buffer.alloc(size, 0x61)
      try {
        for (;;) writeSync(fd, chunk)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      }
    }
  } finally {
    closeSync(fd)
  }
}

describe('a full disk under the data directory (a real tmpfs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-full-'))
  const data = join(dir, 'data')
  let mounted = false
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let service: ReturnType<typeof spawnService>
  let ca: Buffer
  // A health endpoint that answers only when told: it holds one event in processing.
  const heldProbes: ServerResponse[] = []
  let holdProbes = true
  const probe = createServer((_req, res) => (holdProbes ? heldProbes.push(res) : res.end('{"status":"UP"}')))

  beforeAll(async () => {
    if (process.getuid?.() !== 0) {
      throw new Error('this test mounts a tmpfs as the data directory and needs root (CI runs as root)')
    }
    mkdirSync(data)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', data])
    mounted = true
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    mkdirSync(join(dir, 'inv'))
    const healthUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/health`
    writeFileSync(join(dir, 'inv', 'inventory.json'), JSON.stringify({ instances: { 'app-held': { healthUrl } } }))
    smtp = await startSmtp({ hold: true })
    service = spawnService(
      loopbackEnv(token, {
        DIAG_SMTP_URL: smtp.url,
        DIAG_INVENTORY: join(dir, 'inv', 'inventory.json'),
        DIAG_WORKER_CONCURRENCY: '1',
        // Leases run out during the fault: sweeps every second (a quarter of the lease).
        DIAG_WORKER_LEASE_MS: '4000',
        DIAG_HTTP_TIMEOUT_MS: '60000',
        DIAG_LOG_LEVEL: 'info',
      }),
      dir,
    )
    await service.ready
    ca = readFileSync(join(data, 'tls', 'ca.pem'))
  })
  afterAll(async () => {
    service?.child.kill('SIGKILL')
    await service?.exited
    for (const res of heldProbes) res.destroy()
    probe.close()
    await smtp?.close()
    if (mounted) execFileSync('umount', [data])
    rmSync(dir, { recursive: true, force: true })
  })

  const api = (path: string, method = 'GET', body?: unknown) =>
    request(`${service.url}${path}`, {
      method,
      ca,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    })
  const post = (id: string, instance = 'app-quick') =>
    api('/api/v1/alerts/alertmanager', 'POST', webhook([alert({ id }, { appserver_instance: instance })]))
  const scrape = async () => (await api('/metrics')).text

  it('refuses what it cannot store with 503, stays up, and reports every acknowledged alert once space returns', async () => {
    const accepted: string[] = []
    const accept = async (id: string, instance?: string) => {
      const res = await post(id, instance)
      expect(res.status).toBe(202)
      accepted.push(res.json().events[0].eventId)
    }
    // A report on its way to the mail server (held there), an event in processing (its
    // health probe held), and two events queued behind it (one worker slot).
    await accept('sent-before')
    await waitFor(() => smtp.arrived() === 1, 20_000, 'the first report at the mail server')
    await accept('in-processing', 'app-held')
    await waitFor(() => heldProbes.length === 1, 20_000, 'the health probe of the event in processing')
    await accept('queued-1')
    await accept('queued-2')

    fill(join(data, 'filler'))

    // The webhook: 503 storage_unavailable with Retry-After (Alertmanager retries it). A
    // write may still fit in space the journal already holds; the next ones do not.
    const refused: string[] = []
    for (let i = 0; refused.length === 0; i++) {
      expect(i).toBeLessThan(50)
      const res = await post(`during-${i}`)
      if (res.status === 202) {
        accepted.push(res.json().events[0].eventId)
        continue
      }
      expect(res.status).toBe(503)
      expect(res.json().error).toBe('storage_unavailable')
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      refused.push(`during-${i}`)
    }
    // Readiness says why; the gauge says the database does not take writes.
    const ready = await api('/health/ready')
    expect(ready.status).toBe(503)
    expect(ready.json().reason).toBe('storage_unavailable')
    await scrapeUntil(scrape, /^diagnostic_storage_writable 0$/m)

    // Rule registration: 503, and the catalogue does not change.
    const rule = {
      branch: 'FULL-01',
      ruleName: 'RegisteredOnAFullDisk',
      category: 'general',
      targetSource: 'local_file',
      pattern: 'never registered while the disk is full',
      assessment: 'A rule sent while the disk is full.',
      classification: 'probable_cause',
      confidence: 'medium',
      recommendedActions: ['Nothing: this rule is refused.'],
    }
    const registration = await api('/api/v1/rules', 'POST', rule)
    expect(registration.status, registration.text).toBe(503)
    expect(registration.json().error).toBe('storage_unavailable')
    expect((await api('/api/v1/rules/FULL-01')).status).toBe(404)

    // The outbox: the mail server takes the held report, recording "sent" fails.
    smtp.release()
    await scrapeUntil(scrape, /^diagnostic_storage_faults_total\{operation="outbox"\} [1-9]/m, 20_000)
    // The worker: the held event's report cannot be committed, the next claim fails.
    holdProbes = false
    for (const res of heldProbes.splice(0)) res.end('{"status":"UP"}')
    await waitFor(() => service.stdout().includes('no claim: the database does not take writes'), 20_000, 'a claim')
    expect(service.stdout()).toContain('event not stored for a fault of the host')
    // The fault outlasts the held event's lease (4 s): five sweeps, a second apart, failed.
    const sweeps = () => service.stdout().split('lease sweep waits for the database').length - 1
    await waitFor(() => sweeps() >= 5, 20_000, 'sweeps during the fault')
    expect(service.child.exitCode).toBeNull()

    // Space returns: ready again by itself, within seconds.
    rmSync(join(data, 'filler'))
    await waitFor(async () => (await api('/health/ready')).status === 200, 15_000, 'readiness after space returned')
    await scrapeUntil(scrape, /^diagnostic_storage_writable 1$/m)
    // Alertmanager re-sends what was refused.
    for (const id of refused) await accept(id)

    // Every acknowledged alert reaches a final state, and has exactly one report.
    const db = new Database(join(data, 'diagnostic.db'), { readonly: true })
    try {
      const unsettled = db.prepare(
        `SELECT (SELECT count(*) FROM queue_items WHERE status IN ('queued', 'processing'))
              + (SELECT count(*) FROM outbox WHERE status = 'pending')`,
      )
      await waitFor(() => unsettled.pluck().get() === 0, 60_000, 'every event and mail settled')
      const outcomes = db.prepare('SELECT status, count(*) AS n FROM outbox GROUP BY status').all()
      expect(outcomes).toEqual([{ status: 'sent', n: accepted.length }])
    } finally {
      db.close()
    }
    for (const eventId of accepted) expect(smtp.mailsOf(eventId)).toHaveLength(1)
    expect(smtp.mails).toHaveLength(accepted.length)
    // No lease ran out for the fault: nothing was taken for a crashed worker.
    expect(await scrape()).toMatch(/^diagnostic_stale_locks_recovered_total 0$/m)
    expect(service.child.exitCode).toBeNull()
  }, 120_000)
})
