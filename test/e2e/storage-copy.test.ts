import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { type Postgres, startPostgres } from '../helpers/postgres.js'
import { cleanEnv, type ServiceProcess, spawnService } from '../helpers/service-process.js'
import { waitFor } from '../helpers/smtp.js'

const run = promisify(execFile)
const token = 'storage-copy-token-01'

// Moving a SQLite database to PostgreSQL (docs/operations.md): what a service stored on
// SQLite is what the same service shows and continues from on PostgreSQL.

describe('appserver-diag storage copy', () => {
  let postgres: Postgres
  const processes: ServiceProcess[] = []
  beforeAll(async () => {
    postgres = await startPostgres()
  }, 120_000)
  afterAll(() => {
    for (const p of processes) p.child.kill('SIGKILL')
    postgres?.close()
  })

  const start = async (cwd: string, env: Record<string, string> = {}) => {
    const service = spawnService(
      { DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_API_TOKEN: token, DIAG_LOG_LEVEL: 'warn', ...env },
      cwd,
    )
    processes.push(service)
    const url = await service.ready
    const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
    const call = (method: string, path: string, body?: unknown) =>
      request(`${url}${path}`, {
        method,
        ca,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
    return { service, call }
  }
  const cli = (args: string[]) =>
    run(process.execPath, [join(packageRoot, 'dist', 'src', 'cli', 'diag.js'), ...args], { env: cleanEnv({}) })

  it('copies a stopped SQLite service into an empty PostgreSQL, which the service then runs on', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-copy-'))
    const before = await start(cwd)
    for (const id of ['copy-1', 'copy-2']) {
      expect((await before.call('POST', '/api/v1/alerts/alertmanager', webhook([alert({ id })]))).status).toBe(202)
    }
    await waitFor(
      async () =>
        (await before.call('GET', '/api/v1/incidents'))
          .json()
          .incidents.every((i: { diagnosis: unknown }) => i.diagnosis),
      30_000,
      'both diagnosed',
    )
    const incidents = (await before.call('GET', '/api/v1/incidents')).json().incidents
    const rules = (await before.call('GET', '/api/v1/rules?limit=200')).json().rules
    const explanation = (await before.call('GET', `/api/v1/incidents/${incidents[0].id}/explanation`)).json()
    before.service.child.kill('SIGTERM')
    await before.service.exited

    const url = await postgres.createDatabase('copied')
    const copied = await cli(['storage', 'copy', '--from', join(cwd, 'data', 'diagnostic.db'), '--to', url, '--json'])
    const counts = JSON.parse(copied.stdout).copied
    expect(counts).toMatchObject({ incidents: 2, events: 2, results: 2, outbox: 2, evidence_bundles: 2, rules: 10 })

    // A second copy into the same database is refused and changes nothing.
    const again = await cli(['storage', 'copy', '--from', join(cwd, 'data', 'diagnostic.db'), '--to', url]).catch(
      (error: { code: number; stderr: string }) => error,
    )
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('empty database') })

    const after = await start(cwd, { DIAG_DATABASE_URL: url })
    expect((await after.call('GET', '/api/v1/incidents')).json().incidents).toEqual(incidents)
    expect((await after.call('GET', '/api/v1/rules?limit=200')).json().rules).toEqual(rules)
    // The evidence bundles came along, byte for byte (their sizes), with the explanation.
    expect((await after.call('GET', `/api/v1/incidents/${incidents[0].id}/explanation`)).json()).toEqual(explanation)
    // The repeat of an alert filed on SQLite is a duplicate on PostgreSQL; a new rule gets the next id.
    const repeat = await after.call('POST', '/api/v1/alerts/alertmanager', webhook([alert({ id: 'copy-1' })]))
    expect(repeat.json().events[0]).toMatchObject({ duplicate: true })
    const rule = await after.call('POST', '/api/v1/rules', {
      branch: 'CP-01',
      ruleName: 'CopiedThenAdded',
      category: 'general',
      targetSource: 'local_file',
      pattern: 'copied-then-added',
      assessment: 'Added after the copy.',
      classification: 'probable_cause',
      confidence: 'medium',
      recommendedActions: ['Nothing.'],
    })
    expect(rule.status).toBe(201)
    expect(rule.json().id).toBe(
      Math.max(...rules.filter((r: { id: unknown }) => typeof r.id === 'number').map((r: { id: number }) => r.id)) + 1,
    )
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    expect((await db.query('SELECT count(*)::int AS n FROM events')).rows[0].n).toBe(2)
    await db.end()
  }, 180_000)
})
