import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer, type Server, connect as tcpConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Postgres, startPostgres } from '../helpers/postgres.js'
import { type Daemon, daemonMetric, freePort, startAlertmanager } from '../helpers/real-daemons.js'
import { realTool } from '../helpers/real-tools.js'
import { spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// An HA pair of real Alertmanagers, each sending to its own replica on one PostgreSQL, and
// each replica slow to answer: longer than the pair's peer timeout, so that the second
// Alertmanager does not see the first's notification in time and sends too (as with a
// receiver that answers slowly in production). The database files both deliveries as one:
// every alert one incident and one report (docs/operations.md, "Replicas on PostgreSQL").
realTool('prometheus-alertmanager', 'prometheus-alertmanager')
const token = 'ha-replicas-token-0001'
const alerts = 20
/** Longer than the pair's --cluster.peer-timeout (2 s in test/helpers/real-daemons.ts). */
const slowMs = 3500

/**
 * A TCP proxy that holds the replica's answers to a request for `slowMs` (TLS passes
 * through untouched; the handshake is not delayed, only what follows the client's request).
 */
async function slowProxy(targetPort: number): Promise<{ port: number; server: Server }> {
  const server = createServer((client) => {
    const upstream = tcpConnect(targetPort, '127.0.0.1')
    let sent = 0
    client.on('data', (chunk) => {
      sent += chunk.length
      upstream.write(chunk)
    })
    upstream.on('data', (chunk) => {
      // The handshake's bytes pass at once; an answer to a request (its body) waits.
      if (sent < 1500) client.write(chunk)
      else setTimeout(() => client.writable && client.write(chunk), slowMs)
    })
    const close = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('close', close).on('error', close)
    upstream.on('close', () => setTimeout(close, slowMs)).on('error', close)
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { port, server }
}

describe('an Alertmanager HA pair in front of two slow replicas on PostgreSQL', () => {
  let postgres: Postgres
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let db: pg.Pool
  const replicas: Array<ReturnType<typeof spawnService>> = []
  const proxies: Server[] = []
  const pair: Daemon[] = []

  beforeAll(async () => {
    postgres = await startPostgres()
    const url = await postgres.createDatabase('ha')
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
      const proxy = await slowProxy(Number(new URL(urls[i] as string).port))
      proxies.push(proxy.server)
      pair.push(
        await startAlertmanager(mkdtempSync(join(tmpdir(), `diag-ha-am${i}-`)), {
          webhookUrl: `https://127.0.0.1:${proxy.port}/api/v1/alerts/alertmanager`,
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
    for (const proxy of proxies) proxy.close()
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
    // Prometheus sends every alert to every Alertmanager.
    for (const am of pair) {
      const res = await fetch(`${am.url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      })
      expect(res.status).toBe(200)
    }
    const count = async (sql: string) => Number((await db.query(sql)).rows[0]?.n)
    // Both Alertmanagers notified: the slow answers made the second send as well.
    await waitFor(
      async () => {
        const sent = await Promise.all(
          pair.map((am) => daemonMetric(am.url, 'alertmanager_notifications_total', 'integration="webhook"')),
        )
        // Both sent, and more notifications than alerts: some alerts reached both replicas.
        return sent.every((n) => n > 0) && sent.reduce((a, b) => a + b, 0) > alerts
      },
      60_000,
      'both Alertmanagers to have notified, some alerts twice',
    )
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
