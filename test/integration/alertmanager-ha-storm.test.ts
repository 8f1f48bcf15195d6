import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Daemon, daemonMetric, freePort, startAlertmanager } from '../helpers/real-daemons.js'
import { realTool } from '../helpers/real-tools.js'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'

// An authenticated webhook is never answered 429. Alertmanager drops a
// notification answered 4xx and, with the usual group_interval of 5 minutes, sends it again
// only then; a 503 it retries at once, with backoff. Two real Alertmanagers clustered as an
// HA pair both receive a storm of 1,000 distinct alerts (as Prometheus sends every alert to
// every Alertmanager) and both notify the one service, whose per-token rate limit is far
// below the storm's rate. Every alert must end in exactly one incident, well before the
// next group interval would have re-sent anything dropped.
realTool('prometheus-alertmanager', 'prometheus-alertmanager')
const token = 'ha-storm-token-000000001'
const storm = 1000

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

describe('an HA pair of real Alertmanagers in an alert storm', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-ha-storm-'))
  const caFile = join(dir, 'data', 'tls', 'ca.pem')
  let service: ReturnType<typeof spawnService>
  const pair: Daemon[] = []

  beforeAll(async () => {
    service = spawnService(
      loopbackEnv(token, {
        // Far below the storm's rate: a limit that applied to the webhook would drop alerts.
        DIAG_RATE_LIMIT_PER_MINUTE: '60',
      }),
      dir,
    )
    const url = await service.ready
    const [c1, c2] = [await freePort(), await freePort()]
    for (const [name, port, peer] of [
      ['am1', c1, c2],
      ['am2', c2, c1],
    ] as const) {
      pair.push(
        await startAlertmanager(mkdtempSync(join(dir, `${name}-`)), {
          webhookUrl: `${url}/api/v1/alerts/alertmanager`,
          token,
          caFile,
          groupInterval: 300,
          cluster: { port, peers: [peer] },
        }),
      )
    }
    await until(
      async () => {
        const peers = await Promise.all(
          pair.map(async (am) => ((await (await fetch(`${am.url}/api/v2/status`)).json()) as any).cluster.peers.length),
        )
        return peers.every((n) => n === 2)
      },
      'the pair to form a cluster',
      30_000,
    )
  })
  afterAll(() => {
    for (const am of pair) am.stop()
    service.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('turns 1,000 alerts sent through both into exactly one incident each, none lost, none doubled', async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString()
    const alerts = Array.from({ length: storm }, (_, i) => ({
      labels: {
        alertname: 'StormAlert',
        environment: 'prod',
        host: `host-${i % 20}`,
        appserver_instance: `storm-${String(i).padStart(4, '0')}`,
        check: 'health_ready',
        severity: 'warning',
      },
      annotations: { summary: `storm alert ${i}` },
      startsAt,
    }))
    for (const am of pair) {
      const res = await fetch(`${am.url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alerts),
      })
      expect(res.status).toBe(200)
    }

    const db = new Database(join(dir, 'data', 'diagnostic.db'), { readonly: true, fileMustExist: true })
    try {
      const count = (sql: string) => Number(db.prepare(sql).pluck().get())
      await until(
        () =>
          count('SELECT count(*) FROM incidents') === storm &&
          count("SELECT count(*) FROM queue_items WHERE status IN ('queued', 'processing')") === 0,
        'every alert to be diagnosed',
        150_000,
      )
      expect(count("SELECT count(*) FROM events WHERE status = 'firing'")).toBe(storm)
      expect(count('SELECT count(DISTINCT instance) FROM incidents')).toBe(storm)
      expect(count('SELECT max(n) FROM (SELECT count(*) AS n FROM incidents GROUP BY identity)')).toBe(1)
      expect(count("SELECT count(*) FROM outbox WHERE kind = 'diagnosis'")).toBe(storm)
      expect(count("SELECT count(*) FROM queue_items WHERE status = 'failed'")).toBe(0)
    } finally {
      db.close()
    }
    // Both instances notified (the pair's deduplication is not perfect under load, which is
    // what the service's own de-duplication is for) and neither was told anything final.
    const sent = await Promise.all(
      pair.map((am) => daemonMetric(am.url, 'alertmanager_notifications_total', 'integration="webhook"')),
    )
    expect(sent.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(storm)
  }, 240_000)
})
