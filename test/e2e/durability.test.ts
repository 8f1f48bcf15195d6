import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { type ServiceProcess, spawnService } from '../helpers/service-process.js'

const token = 'durability-token-0001'
const clients = 8
const killAfterAcks = 300
/** The kill waits for the checkpoint thread to have copied the WAL into the database this often. */
const killAfterCheckpoints = 2

describe('durability (D11): every 202 survives kill -9, checkpoints on their thread included', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'diag-durability-'))
  const env = {
    DIAG_PORT: '0',
    DIAG_HOST: '127.0.0.1',
    DIAG_API_TOKEN: token,
    DIAG_QUEUE_CAPACITY: '1000000',
    DIAG_RATE_LIMIT_PER_MINUTE: '0',
    DIAG_WORKER: 'off',
    DIAG_LOG_LEVEL: 'warn',
  }
  const processes: ServiceProcess[] = []
  afterAll(() => {
    for (const p of processes) p.child.kill('SIGKILL')
  })

  it('keeps every acknowledged alert across SIGKILL mid-load and a restart', async () => {
    const first = spawnService(env, cwd)
    processes.push(first)
    const url = await first.ready
    const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
    const post = (body: string) =>
      request(`${url}/api/v1/alerts/alertmanager`, {
        method: 'POST',
        ca,
        body,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        timeoutMs: 5_000,
      })

    const acked: Array<{ body: string; eventIds: string[] }> = []
    let killed = false
    let sent = 0
    // The checkpoints run on their own thread while the webhooks commit (docs/design.md,
    // "Checkpoints on a thread of their own"): the kill comes after some of them, mid-load.
    let checkpoints = 0
    const watchCheckpoints = (async () => {
      while (!killed) {
        const res = await request(`${url}/metrics`, { ca, timeoutMs: 5_000 }).catch(() => undefined)
        const count = /^diagnostic_wal_checkpoints_total\{site="checkpoint_thread"\} (\d+)$/m.exec(res?.text ?? '')?.[1]
        checkpoints = Number(count ?? checkpoints)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    const client = async (c: number) => {
      for (let i = 0; !killed; i++) {
        // One to three alerts a request, each unique, so a request is acked as a whole.
        const alerts = Array.from({ length: 1 + (i % 3) }, (_, k) => alert({ id: `c${c}r${i}a${k}` }))
        const body = JSON.stringify(webhook(alerts))
        sent++
        try {
          const res = await post(body)
          if (res.status !== 202) throw new Error(`unexpected ${res.status}: ${res.text}`)
          acked.push({ body, eventIds: res.json().events.map((e: { eventId: string }) => e.eventId) })
          if (acked.length >= killAfterAcks && checkpoints >= killAfterCheckpoints && !killed) {
            killed = true
            first.child.kill('SIGKILL')
          }
        } catch (error) {
          if (!killed) throw error
          return // the connection died with the process: not acknowledged, no promise made
        }
      }
    }
    await Promise.all(Array.from({ length: clients }, (_, c) => client(c)))
    await watchCheckpoints
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' })
    expect(checkpoints).toBeGreaterThanOrEqual(killAfterCheckpoints)
    expect(acked.length).toBeGreaterThanOrEqual(killAfterAcks)
    // Requests in flight at the kill may or may not have been answered: a group commit answers
    // its requests together, so they can all be on the wire before the signal lands. What
    // is checked is the promise: every 202 survives. (It once asserted some were unanswered,
    // which depended on that timing and failed in CI.)
    expect(sent).toBeGreaterThanOrEqual(acked.length)

    const second = spawnService(env, cwd)
    processes.push(second)
    const url2 = await second.ready
    const ackedEvents = acked.flatMap((a) => a.eventIds)

    // Straight from the file: every acknowledged event and its queue item are there.
    const db = new Database(join(cwd, 'data', 'diagnostic.db'), { readonly: true })
    const stored = new Set(db.prepare('SELECT event_id FROM queue_items').pluck().all() as string[])
    db.close()
    const missing = ackedEvents.filter((id) => !stored.has(id))
    expect(missing).toEqual([])

    // And through the API: re-sending each acknowledged request is a pure duplicate.
    for (const { body, eventIds } of acked) {
      const res = await request(`${url2}/api/v1/alerts/alertmanager`, {
        method: 'POST',
        ca,
        body,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      })
      expect(res.status).toBe(202)
      const answer = res.json()
      expect(answer.queued).toBe(0)
      expect(answer.events.map((e: { eventId: string; duplicate: boolean }) => [e.eventId, e.duplicate])).toEqual(
        eventIds.map((id) => [id, true]),
      )
    }
  }, 120_000)
})
