import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alertIdentity } from '../../src/incidents/alert-identity.js'
import { lockKey } from '../../src/store/postgres/event-writer.js'
import { type Postgres, startPostgres } from '../helpers/postgres.js'
import { type Daemon, daemonMetric, freePort, startAlertmanager } from '../helpers/real-daemons.js'
import { realTool } from '../helpers/real-tools.js'
import { spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// An HA pair of real Alertmanagers, each sending to its own replica on one PostgreSQL, and
// the replicas slow to answer: the test holds the alerts' advisory locks (as a long
// transaction of another replica would), so the first Alertmanager's notification does not
// complete within the pair's peer timeout and the second sends too (as with a receiver that
// answers slowly in production). Once both replicas wait on the same alerts, the locks go;
// the database files both deliveries as one: every alert one incident and one report
// (docs/operations.md, "Replicas on PostgreSQL").
realTool('prometheus-alertmanager', 'prometheus-alertmanager')
const token = 'ha-replicas-token-0001'
const alerts = 20

describe('an Alertmanager HA pair in front of two slow replicas on PostgreSQL', () => {
  let postgres: Postgres
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let db: pg.Pool
  let databaseUrl: string
  const replicas: Array<ReturnType<typeof spawnService>> = []
  const pair: Daemon[] = []

  beforeAll(async () => {
    postgres = await startPostgres()
    const url = await postgres.createDatabase('ha')
    databaseUrl = url
    db = new pg.Pool({ connectionString: url, max: 2 })
    db.on('error', () => {})
    smtp = await startSmtp()
    const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'diag-ha-replica-')))
    for (const dir of dirs) {
      replicas.push(
        spawnService(
          {
            DIAG_PORT: '0',
            DIAG_HOST: '127.0.0.1',
            DIAG_API_TOKEN: token,
            DIAG_LOG_LEVEL: 'warn',
            DIAG_DATABASE_URL: url,
            DIAG_SMTP_URL: smtp.url,
            DIAG_MAIL_TO: 'oncall@example.com',
            DIAG_ANALYSIS_THREADS: '1',
            // A replica waits for the held locks, however loaded the host, rather than answer 503.
            DIAG_DATABASE_TIMEOUT_MS: '30000',
          },
          dir,
        ),
      )
    }
    const urls = await Promise.all(replicas.map((replica) => replica.ready))
    const [c1, c2] = [await freePort(), await freePort()]
    for (const [i, port, peer] of [
      [0, c1, c2],
      [1, c2, c1],
    ] as const) {
      pair.push(
        await startAlertmanager(mkdtempSync(join(tmpdir(), `diag-ha-am${i}-`)), {
          webhookUrl: `${urls[i]}/api/v1/alerts/alertmanager`,
          token,
          caFile: join(dirs[i] as string, 'data', 'tls', 'ca.pem'),
          groupInterval: 300,
          cluster: { port, peers: [peer] },
        }),
      )
    }
    await waitFor(
      async () => {
        const peers = await Promise.all(
          pair.map(async (am) => ((await (await fetch(`${am.url}/api/v2/status`)).json()) as any).cluster.peers.length),
        )
        return peers.every((n) => n === 2)
      },
      30_000,
      'the pair to form a cluster',
    )
  }, 180_000)

  afterAll(async () => {
    for (const am of pair) am.stop()
    for (const replica of replicas) replica.child.kill('SIGKILL')
    await db?.end()
    await smtp?.close()
    postgres?.close()
  })

  it('files what both Alertmanagers delivered as one incident and one report per alert', async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString()
    const batch = Array.from({ length: alerts }, (_, i) => ({
      labels: {
        alertname: 'HaSlowReceiver',
        environment: 'prod',
        host: `host-${i}`,
        appserver_instance: `ha-${i}`,
        check: 'health_ready',
        severity: 'critical',
      },
      annotations: { summary: `alert ${i}` },
      startsAt,
    }))
    // The replicas are slow: what they must lock to file these alerts is held here.
    const holder = new pg.Client({ connectionString: databaseUrl })
    await holder.connect()
    const keys = batch.map((alert) => lockKey(alertIdentity(alert.labels)))
    await holder.query(`SELECT ${keys.map((key) => `pg_advisory_lock(${key})`).join(', ')}`)
    // Prometheus sends every alert to every Alertmanager.
    const posted = await Promise.all(
      pair.map((am) =>
        fetch(`${am.url}/api/v2/alerts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(batch),
        }),
      ),
    )
    expect(posted.map((res) => res.status)).toEqual([200, 200])
    const count = async (sql: string) => Number((await db.query(sql)).rows[0]?.n)
    // Both replicas wait on the alerts' locks: both Alertmanagers delivered, past the peer timeout.
    await waitFor(
      async () =>
        (await count(`SELECT count(DISTINCT a.application_name) AS n FROM pg_locks l
          JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND NOT l.granted`)) === 2,
      60_000,
      'both replicas to wait on the same alerts',
    )
    await holder.end()
    await waitFor(
      async () =>
        (await count('SELECT count(*) AS n FROM incidents')) === alerts &&
        (await count("SELECT count(*) AS n FROM outbox WHERE status = 'sent'")) === alerts &&
        (await count("SELECT count(*) AS n FROM queue_items WHERE status IN ('queued', 'processing')")) === 0,
      120_000,
      'every alert diagnosed and mailed',
    )
    expect(await count('SELECT count(*) AS n FROM events')).toBe(alerts)
    const reports = smtp.mails.filter((mail) => mail.headers['x-diagnostic-kind'] === 'diagnosis')
    expect(reports).toHaveLength(alerts)
    expect(new Set(reports.map((mail) => mail.headers['message-id'])).size).toBe(alerts)
  }, 240_000)
})
