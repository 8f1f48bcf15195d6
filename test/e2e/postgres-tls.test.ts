import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DevTlsFiles, ensureDevCertificates } from '../../src/tls/dev-certificates.js'
import { subjectNames } from '../../src/tls/subject-names.js'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { type Postgres, startPostgres } from '../helpers/postgres.js'
import { loopbackEnv, type ServiceProcess, spawnService } from '../helpers/service-process.js'

const token = 'postgres-tls-token-01'

// A PostgreSQL reached over a network is reached over TLS (docs/operations.md, "Replicas on PostgreSQL"):
// the URL's `sslmode=verify-full&sslrootcert=...` encrypts every connection of the pool and
// checks the server; a server the CA does not vouch for, or a URL without TLS to a server
// that requires it, stops the start with a line that says why, and nothing goes in clear.

describe('PostgreSQL over TLS', () => {
  let postgres: Postgres
  let serverCa: DevTlsFiles
  let otherCa: DevTlsFiles
  const processes: ServiceProcess[] = []
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-pg-tls-'))
    const names = subjectNames(['localhost', '127.0.0.1'])
    serverCa = await ensureDevCertificates(join(dir, 'server'), names)
    otherCa = await ensureDevCertificates(join(dir, 'other'), names)
    postgres = await startPostgres({ tls: { certFile: serverCa.certFile, keyFile: serverCa.keyFile } })
  }, 120_000)
  afterAll(() => {
    for (const p of processes) p.child.kill('SIGKILL')
    postgres?.close()
  })

  const spawn = (databaseUrl: string) => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-pg-tls-service-'))
    const service = spawnService(loopbackEnv(token, { DIAG_DATABASE_URL: databaseUrl, DIAG_WORKER: 'off' }), cwd)
    processes.push(service)
    return { service, cwd }
  }
  const fatalLine = (service: ServiceProcess) =>
    service.logLines().find((line) => line.level === 60) as { msg: string } | undefined
  const overSocket = async <T>(database: string, body: (client: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ host: postgres.socketDir, port: postgres.port, user: 'postgres', database })
    await client.connect()
    try {
      return await body(client)
    } finally {
      await client.end()
    }
  }

  it('verify-full with the CA: every connection of the service is encrypted, and it takes alerts', async () => {
    const url = `${await postgres.createDatabase('tls_ok')}?sslmode=verify-full&sslrootcert=${serverCa.caFile}`
    const { service, cwd } = spawn(url)
    const base = await service.ready
    const answer = await request(`${base}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: readFileSync(join(cwd, 'data', 'tls', 'ca.pem')),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(webhook([alert({ id: 'over-tls' })])),
    })
    expect(answer.status).toBe(202)
    const { connections, events } = await overSocket('tls_ok', async (client) => ({
      connections: (
        await client.query(
          `SELECT s.ssl, s.version FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
            WHERE a.application_name LIKE 'appserver-diag%'`,
        )
      ).rows as Array<{ ssl: boolean; version: string }>,
      events: Number((await client.query('SELECT count(*) AS n FROM events')).rows[0].n),
    }))
    expect(connections.length).toBeGreaterThan(0)
    expect(connections.every((c) => c.ssl && /^TLSv1\.[23]$/.test(c.version))).toBe(true)
    expect(events).toBe(1)
  })

  it('a server its CA does not vouch for: the start stops naming the certificate', async () => {
    const url = `${await postgres.createDatabase('tls_other_ca')}?sslmode=verify-full&sslrootcert=${otherCa.caFile}`
    const { service } = spawn(url)
    const exit = await service.exited
    expect(exit.code).toBe(1)
    expect(fatalLine(service)?.msg).toMatch(/self-signed certificate|unable to verify/)
  })

  it('a URL without TLS to a server that requires it: the start stops naming pg_hba.conf', async () => {
    const url = await postgres.createDatabase('tls_missing')
    const { service } = spawn(url)
    const exit = await service.exited
    expect(exit.code).toBe(1)
    expect(fatalLine(service)?.msg).toMatch(/no pg_hba\.conf entry.*no encryption/)
  })
})
