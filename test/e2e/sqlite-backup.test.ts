import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { realTool } from '../helpers/real-tools.js'
import { loopbackEnv, type ServiceProcess, spawnService } from '../helpers/service-process.js'
import { waitFor } from '../helpers/smtp.js'

// The backup of docs/operations.md ("Backup and restore"), as an operator runs it: Debian's
// sqlite3 copies the live database with VACUUM INTO while the service keeps storing alerts
// (its busy timeout is 2 ms, so a backup that blocked a write would show as a 503), and a
// service started on the copy knows every alert acknowledged before the copy began.

const token = 'backup-e2e-token-000000001'
const startsAt = '2026-11-24T05:00:00.000Z'
const running: ServiceProcess[] = []
afterAll(() => {
  for (const service of running) service.child.kill('SIGKILL')
})

function start(dir: string) {
  // A queue that never fills: every answer under load must be the commit's 202.
  const service = spawnService(loopbackEnv(token, { DIAG_QUEUE_CAPACITY: '100000' }), dir)
  running.push(service)
  return service
}

describe('an online backup of the SQLite database', () => {
  it('copies a consistent database without refusing a write, and a service restored from it knows every acknowledged alert', async () => {
    const sqlite3 = realTool('sqlite3', 'sqlite3')
    const dir = mkdtempSync(join(tmpdir(), 'diag-backup-'))
    const service = start(dir)
    const url = await service.ready
    const ca = readFileSync(join(dir, 'data', 'tls', 'ca.pem'))
    const database = join(dir, 'data', 'diagnostic.db')
    const post = (ids: string[]) =>
      request(`${url}/api/v1/alerts/alertmanager`, {
        method: 'POST',
        ca,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(webhook(ids.map((id) => alert({ id, startsAt })))),
      })
    const acknowledged: string[] = []
    const postAll = async (ids: string[]) => {
      const answer = await post(ids)
      expect(answer.status, answer.text).toBe(202)
      acknowledged.push(...ids)
    }
    for (let batch = 0; batch < 3; batch++) await postAll(Array.from({ length: 10 }, (_, i) => `before-${batch}-${i}`))

    // A sqlite3 session that holds its snapshot, as VACUUM INTO does for the whole copy:
    // the service's writes go on beside it (WAL), none waits for it.
    const marker = join(dir, 'snapshot-held')
    const reader = spawn(sqlite3, [database], { stdio: ['pipe', 'ignore', 'pipe'] })
    reader.stdin.write(`.timeout 5000\nBEGIN;\nSELECT count(*) FROM incidents;\n.shell touch '${marker}'\n`)
    await waitFor(() => existsSync(marker), 10_000, 'the sqlite3 session to hold its snapshot')
    await postAll(Array.from({ length: 10 }, (_, i) => `beside-reader-${i}`))
    reader.stdin.end('COMMIT;\n')
    expect(await new Promise((resolve) => reader.on('exit', resolve))).toBe(0)

    // Four posters keep the service writing from before the backup starts until after it ends.
    const statuses: number[] = []
    let loading = true
    const poster = async (name: string) => {
      for (let n = 0; loading; n++) {
        const answer = await post([`${name}-${n}`])
        statuses.push(answer.status)
      }
    }
    const posters = Promise.all(['load-a', 'load-b', 'load-c', 'load-d'].map(poster))
    await waitFor(() => statuses.length >= 8, 20_000, 'the load to run')
    const backupDir = join(dir, 'backup')
    mkdirSync(backupDir, { mode: 0o700 })
    const backup = join(backupDir, 'diagnostic-2026-11-24.db')
    const copied = spawnSync(sqlite3, ['-cmd', '.timeout 5000', database, `VACUUM INTO '${backup}'`], {
      encoding: 'utf8',
    })
    expect(copied.status, copied.stderr).toBe(0)
    const answeredBy = statuses.length
    await waitFor(() => statuses.length >= answeredBy + 8, 20_000, 'the load to go on after the backup')
    loading = false
    await posters
    expect(statuses.filter((status) => status !== 202)).toEqual([])
    const metrics = (await request(`${url}/metrics`, { ca })).text
    expect(metrics).toMatch(/^diagnostic_storage_writable 1$/m)
    expect(metrics).not.toMatch(/^diagnostic_storage_faults_total\{[^}]*\} [1-9]/m)

    const query = (sql: string) => spawnSync(sqlite3, [backup, sql], { encoding: 'utf8' }).stdout.trim()
    expect(query('PRAGMA integrity_check')).toBe('ok')
    const incidents = Number(query('SELECT count(*) FROM incidents'))
    expect(incidents).toBeGreaterThanOrEqual(acknowledged.length)
    expect(incidents).toBeLessThanOrEqual(acknowledged.length + statuses.length)

    // The restore: the service stopped, the copy in place of its database, started again.
    service.child.kill('SIGTERM')
    expect(await service.exited).toEqual({ code: 0, signal: null })
    const restoredDir = mkdtempSync(join(tmpdir(), 'diag-restored-'))
    mkdirSync(join(restoredDir, 'data'), { mode: 0o700 })
    copyFileSync(backup, join(restoredDir, 'data', 'diagnostic.db'))
    const restored = start(restoredDir)
    const restoredUrl = await restored.ready
    const again = await request(`${restoredUrl}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: readFileSync(join(restoredDir, 'data', 'tls', 'ca.pem')),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(webhook(acknowledged.map((id) => alert({ id, startsAt })))),
    })
    expect(again.json()).toMatchObject({ received: acknowledged.length, duplicates: acknowledged.length, queued: 0 })
  })
})
