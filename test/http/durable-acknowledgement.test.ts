import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SyncWal } from '../../src/store/sqlite/wal-sync.js'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { scrapeUntil } from '../helpers/metrics.js'
import { validRule } from '../helpers/rule-input.js'
import { waitFor } from '../helpers/smtp.js'

/**
 * D11 over the real HTTPS listener: SQLite commits with synchronous=NORMAL and the WAL is
 * synced off the event loop (src/store/sqlite/wal-sync.ts), so a committed write is not yet
 * on stable storage. While the test holds every WAL sync, an alert is committed (the rows
 * are there) but its 202 is not sent, nor the 202 of its duplicate, nor a rule's 201; once
 * the syncs run, they are.
 */
describe('acknowledged only once the WAL is synced (D11)', () => {
  let t: TestService
  let holding = false
  const held: Array<() => void> = []
  const wrapSync =
    (real: SyncWal): SyncWal =>
    async () => {
      if (holding) await new Promise<void>((resolve) => held.push(resolve))
      await real()
    }
  const release = () => {
    holding = false
    for (const go of held.splice(0)) go()
  }

  beforeAll(async () => {
    t = await build({ DIAG_WORKER: 'off' }, { wrapSync })
  })
  afterAll(async () => {
    release()
    await t.close()
  })

  /** Another request answered after the held write: the event loop ran on past its commit. */
  const loopRanOn = async () => expect((await t.call('GET', '/health/live')).status).toBe(200)

  function tracked<T>(promise: Promise<T>) {
    const state: { settled: boolean; value?: T } = { settled: false }
    const done = promise.then((value) => {
      state.settled = true
      state.value = value
      return value
    })
    return { state, done }
  }

  it('sends no 202 for a committed alert, nor for its duplicate, until the sync that covers it completes', async () => {
    const body = webhook([alert({ id: 'held-01' })])
    holding = true
    const first = tracked(t.call('POST', '/api/v1/alerts/alertmanager', { json: body }))
    // The positive signal: the alert is committed (visible on the service's connection) and a sync waits.
    await waitFor(async () => (await t.count('events')) === 1 && held.length > 0, 20_000, 'the commit')
    const duplicate = tracked(t.call('POST', '/api/v1/alerts/alertmanager', { json: body }))
    await loopRanOn()
    await loopRanOn()
    expect(first.state.settled).toBe(false)
    expect(duplicate.state.settled).toBe(false)

    release()
    const [res, dup] = await Promise.all([first.done, duplicate.done])
    expect(res.status).toBe(202)
    expect(res.json()).toMatchObject({ queued: 1, duplicates: 0 })
    expect(dup.status).toBe(202)
    expect(dup.json()).toMatchObject({ queued: 0, duplicates: 1 })
  })

  it('sends no 201 for a committed rule until its sync completes', async () => {
    const rules = async () => (await t.rows('SELECT count(*) AS n FROM rules'))[0]?.n
    const before = Number(await rules())
    holding = true
    const registered = tracked(t.call('POST', '/api/v1/rules', { json: validRule() }))
    await waitFor(async () => Number(await rules()) === before + 1 && held.length > 0, 20_000, 'the commit')
    await loopRanOn()
    await loopRanOn()
    expect(registered.state.settled).toBe(false)

    release()
    expect((await registered.done).status).toBe(201)
  })

  it('answers a duplicate at once when everything committed is synced', async () => {
    const body = webhook([alert({ id: 'held-02' })])
    expect((await t.call('POST', '/api/v1/alerts/alertmanager', { json: body })).status).toBe(202)
    holding = true
    // Nothing committed since: no sync to wait for, so the held syncs do not hold it.
    const dup = await t.call('POST', '/api/v1/alerts/alertmanager', { json: body })
    expect(dup.status).toBe(202)
    expect(held).toHaveLength(0)
    release()
  })
})

/**
 * A WAL sync that fails (EIO) fails the writes that waited for it, as a failed commit does:
 * 503 storage_unavailable, readiness DOWN; and, as the kernel may have dropped what it could
 * not write, every later write too, the probe included, until the process starts again.
 */
describe('a failed WAL sync is never acknowledged (D11)', () => {
  let t: TestService
  let failing = false
  const wrapSync =
    (real: SyncWal): SyncWal =>
    async () => {
      if (failing) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })
      await real()
    }
  beforeAll(async () => {
    t = await build({ DIAG_WORKER: 'off' }, { wrapSync })
  })
  afterAll(() => t.close())

  const post = (id: string) => t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook([alert({ id })]) })

  it('answers 503 storage_unavailable, turns readiness DOWN, and refuses every later write', async () => {
    expect((await post('before-eio')).status).toBe(202)
    failing = true
    const refused = await post('eio-01')
    expect(refused.status).toBe(503)
    expect(refused.json().error).toBe('storage_unavailable')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    const ready = await t.call('GET', '/health/ready')
    expect(ready.status).toBe(503)
    expect(ready.text).toContain('storage_unavailable')
    const scrape = async () => (await t.call('GET', '/metrics')).text
    const metrics = await scrapeUntil(scrape, /diagnostic_storage_faults_total\{operation="wal_sync"\} 1/)
    expect(metrics).toMatch(/diagnostic_storage_writable 0/)

    // The disk answers again, but what the failed sync covered may be lost: still refused.
    failing = false
    expect((await post('eio-02')).status).toBe(503)
    expect((await t.call('POST', '/api/v1/rules', { json: validRule({ branch: 'TD-31' }) })).status).toBe(503)
    // Even a duplicate of an alert synced before: something was committed since (the
    // refused alerts), and no sync is trusted now.
    expect((await post('before-eio')).status).toBe(503)
    // The probe (a write and its sync, every second) fails too: readiness stays DOWN.
    await scrapeUntil(scrape, /operation="probe"\} [1-9]/, 20_000)
    expect((await t.call('GET', '/health/ready')).status).toBe(503)
  })
})
