import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// Another process holds the write lock of the database for 8 s (an operator's sqlite3 left
// in a transaction, a slow backup step): the service keeps answering, says it cannot write,
// loses nothing, and recovers by itself (docs/operations.md).

const token = 'lock-e2e-token-0000000001'

/** A second process that takes the write lock with BEGIN IMMEDIATE and keeps it `ms`. */
function holdWriteLock(file: string, ms: number) {
  const script = `const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('BEGIN IMMEDIATE');
    console.log('locked'); setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`
  const child = spawn(process.execPath, ['-e', script, file], {
    cwd: packageRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve())
    child.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)))
  })
  const released = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  return { locked, released }
}

describe('the database locked by another process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-lock-'))
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let service: ReturnType<typeof spawnService>
  let ca: Buffer
  beforeAll(async () => {
    smtp = await startSmtp()
    service = spawnService(
      loopbackEnv(token, {
        DIAG_SMTP_URL: smtp.url,
      }),
      dir,
    )
    await service.ready
    ca = readFileSync(join(dir, 'data', 'tls', 'ca.pem'))
  })
  afterAll(async () => {
    service.child.kill('SIGKILL')
    await smtp.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const post = (id: string) =>
    request(`${service.url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca,
      body: JSON.stringify(webhook([alert({ id, startsAt: new Date(Date.now() - 60_000).toISOString() })])),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    })
  let released = false
  const ready = async () => {
    const res = await request(`${service.url}/health/ready`, { ca })
    return { status: res.status, body: res.text, answeredWhileLocked: !released }
  }

  it('answers while locked, 503 storage_unavailable, and delivers every alert after', async () => {
    const lock = holdWriteLock(join(dir, 'data', 'diagnostic.db'), 8000)
    await lock.locked
    void lock.released.then(() => {
      released = true
    })
    // Not clocked: an answer counts when it came before the other process let go of the
    // lock, so a service that waited for the lock fails here however fast the host is.
    // A webhook while locked: 503 with Retry-After at once (Alertmanager retries it).
    const refused = await post('during-lock')
    expect(released).toBe(false)
    expect(refused.status).toBe(503)
    expect(refused.json().error).toBe('storage_unavailable')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    // Readiness answers throughout, and says why it is down.
    const probes: Array<Awaited<ReturnType<typeof ready>>> = []
    while (!released) {
      probes.push(await ready())
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const whileLocked = probes.filter((p) => p.answeredWhileLocked)
    expect(whileLocked.length).toBeGreaterThanOrEqual(3)
    expect(whileLocked.some((p) => p.status === 503 && p.body.includes('storage_unavailable'))).toBe(true)
    // Released: ready again within seconds, by itself.
    const deadline = Date.now() + 10_000
    while ((await ready()).status !== 200) {
      if (Date.now() > deadline) throw new Error('readiness never came back after the lock was released')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const accepted = await post('during-lock')
    expect(accepted.status).toBe(202)
    const eventId = accepted.json().events[0].eventId
    await waitFor(() => smtp.mailsOf(eventId)[0], 20_000, 'the diagnosis of the alert refused while locked')
    expect(service.child.exitCode).toBeNull()
  }, 60_000)
})
