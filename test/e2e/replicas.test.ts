import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { type Postgres, startPostgres } from '../helpers/postgres.js'
import { type ServiceProcess, spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// Replicas on PostgreSQL (docs/design.md, "Storage"; docs/operations.md, "Replicas on PostgreSQL"):
// three real service processes on one real PostgreSQL 15, the same alerts posted to all of
// them at once, one replica killed mid-storm, the database itself stopped and started.

const token = 'replicas-token-000001'

/** Runs `task` over `items`, `width` at a time: a sender holds a few connections, not hundreds. */
async function inParallel<T>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++
        await task(items[index] as T, index)
      }
    }),
  )
}

interface Replica {
  process: ServiceProcess & { ready: Promise<string> }
  url: string
  ca: Buffer
  post(payload: unknown): Promise<{ status: number; json: () => any }>
}

describe('replicas on PostgreSQL', () => {
  let postgres: Postgres
  let databaseUrl: string
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  const replicas: Replica[] = []
  let db: pg.Pool

  async function startReplica(env: Record<string, string> = {}): Promise<Replica> {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-replica-'))
    const process = spawnService(
      {
        DIAG_PORT: '0',
        DIAG_HOST: '127.0.0.1',
        DIAG_API_TOKEN: token,
        DIAG_LOG_LEVEL: 'warn',
        DIAG_DATABASE_URL: databaseUrl,
        DIAG_DATABASE_TIMEOUT_MS: '3000',
        DIAG_MAIL_CLAIM_SECONDS: '5',
        DIAG_SMTP_URL: smtp.url,
        DIAG_MAIL_TO: 'oncall@example.com',
        DIAG_QUEUE_CAPACITY: '100000',
        DIAG_RATE_LIMIT_PER_MINUTE: '0',
        DIAG_WORKER_LEASE_MS: '5000',
        DIAG_MAIL_RETRY_BASE_MS: '200',
        DIAG_ANALYSIS_THREADS: '1',
        ...env,
      },
      cwd,
    )
    const url = await process.ready
    const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
    const post = (payload: unknown) =>
      request(`${url}/api/v1/alerts/alertmanager`, {
        method: 'POST',
        ca,
        body: JSON.stringify(payload),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        timeoutMs: 15_000,
      })
    return { process, url, ca, post }
  }

  const count = async (sql: string) => Number((await db.query(sql)).rows[0]?.n)
  /** Nothing queued or in processing, no mail pending; the queue and outbox as they stand if that never comes. */
  const drained = (what: string) =>
    waitFor(
      async () =>
        (await count("SELECT count(*) AS n FROM queue_items WHERE status IN ('queued', 'processing')")) === 0 &&
        (await count("SELECT count(*) AS n FROM outbox WHERE status = 'pending'")) === 0,
      180_000,
      what,
    ).catch(async (error: unknown) => {
      const state = await db.query(
        `SELECT 'queue' AS what, status, count(*)::int AS n FROM queue_items GROUP BY status
         UNION ALL SELECT 'outbox', status, count(*)::int FROM outbox GROUP BY status`,
      )
      throw new Error(`${(error as Error).message}: ${JSON.stringify(state.rows)}`)
    })
  /** Each acknowledged alert (its `alert_id`): one event, one report row, sent. */
  const expectOneReportEach = async (prefix: string, acked: readonly string[]) => {
    const { rows } = await db.query<{ id: string; events: number; sent: number }>(
      `SELECT e.alert::jsonb->'labels'->>'alert_id' AS id, count(DISTINCT e.id)::int AS events,
         count(o.id) FILTER (WHERE o.status = 'sent')::int AS sent
       FROM events e LEFT JOIN outbox o ON o.event_id = e.id
       WHERE e.alert::jsonb->'labels'->>'alert_id' LIKE $1 GROUP BY 1`,
      [`${prefix}-%`],
    )
    const byId = new Map(rows.map((row) => [row.id, row]))
    for (const id of acked) expect(byId.get(id), id).toMatchObject({ events: 1, sent: 1 })
  }

  beforeAll(async () => {
    postgres = await startPostgres()
    databaseUrl = await postgres.createDatabase('replicas')
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
    // The test's own connections meet the restart too.
    db.on('error', () => {})
    smtp = await startSmtp()
    // Three replicas starting together: the migrations run once, under their advisory lock.
    replicas.push(...(await Promise.all([startReplica(), startReplica(), startReplica()])))
  }, 180_000)

  afterAll(async () => {
    for (const replica of replicas) {
      // A replica that died by itself says why, for whoever reads the failure.
      if (replica.process.child.exitCode !== null)
        console.error(replica.process.stdout().slice(-4000), replica.process.stderr().slice(-4000))
      replica.process.child.kill('SIGKILL')
    }
    await db?.end()
    await smtp?.close()
    postgres?.close()
  })

  it('counts the live replicas and names one that would diagnose differently', async () => {
    const first = replicas[0] as Replica
    const scrape = async () =>
      (await request(`${first.url}/metrics`, { ca: first.ca, headers: { authorization: `Bearer ${token}` } })).text
    await waitFor(async () => /^diagnostic_replicas_live 3$/m.test(await scrape()), 30_000, 'three live replicas')
    // A fourth replica with another inventory: it would read other evidence.
    const dir = mkdtempSync(join(tmpdir(), 'diag-other-inventory-'))
    const inventory = join(dir, 'inventory.json')
    writeFileSync(inventory, JSON.stringify({ instances: { 'app-01': { logs: [] } } }))
    const odd = await startReplica({ DIAG_INVENTORY: inventory })
    await waitFor(
      async () => /^diagnostic_replicas_differing\{what="inventory"\} 1$/m.test(await scrape()),
      30_000,
      'the replica with another inventory named',
    )
    const text = await scrape()
    expect(text).toMatch(/^diagnostic_replicas_live 4$/m)
    expect(text).toMatch(/^diagnostic_replicas_differing\{what="version"\} 0$/m)
    // A clean stop leaves the table at once.
    odd.process.child.kill('SIGTERM')
    await odd.process.exited
    await waitFor(async () => /^diagnostic_replicas_live 3$/m.test(await scrape()), 30_000, 'three again')
  }, 120_000)

  it('files the same 100 alerts posted to all three replicas at once, three times, as 100 incidents and 100 reports', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `same-${i}`)
    const statuses: number[] = []
    for (let round = 0; round < 3; round++) {
      // Every replica gets every alert at the same moment, as behind an Alertmanager HA pair.
      await Promise.all(
        replicas.map((replica) =>
          inParallel(ids, 4, async (id) => {
            statuses.push((await replica.post(webhook([alert({ id, startsAt: '2026-11-24T05:00:00Z' })]))).status)
          }),
        ),
      )
    }
    expect(statuses.filter((status) => status !== 202)).toEqual([])
    expect(await count('SELECT count(*) AS n FROM incidents')).toBe(100)
    expect(await count('SELECT count(*) AS n FROM events')).toBe(100)
    await waitFor(
      async () => (await count("SELECT count(*) AS n FROM outbox WHERE status = 'sent'")) === 100,
      120_000,
      '100 reports sent',
    )
    const reports = smtp.mails.filter((mail) => mail.headers['x-diagnostic-kind'] === 'diagnosis')
    expect(reports).toHaveLength(100)
    expect(new Set(reports.map((mail) => mail.headers['message-id'])).size).toBe(100)
  }, 240_000)

  it('gives every acknowledged alert of a storm exactly one report when a replica is SIGKILLed in the middle', async () => {
    const acked: string[] = []
    const victim = replicas[0] as Replica
    const storm = Array.from({ length: 300 }, (_, i) => `storm-${i}`)
    await inParallel(storm, 12, async (id, i) => {
      if (i === 150) victim.process.child.kill('SIGKILL')
      try {
        const answer = await (replicas[i % 3] as Replica).post(
          webhook([alert({ id, startsAt: '2026-11-24T05:10:00Z' })]),
        )
        if (answer.status === 202) acked.push(id)
      } catch {
        // The killed replica's connections: not acknowledged, so Alertmanager would retry.
      }
    })
    expect(acked.length).toBeGreaterThan(150)
    await drained('the storm diagnosed and mailed by the two survivors, the dead replica leases recovered')
    await expectOneReportEach('storm', acked)
    // At the SMTP server: a mail re-sent after a crash mid-send is the same message, never another.
    const alertOf = new Map(
      (
        await db.query<{ id: string; alert_id: string }>(
          "SELECT id, alert::jsonb->'labels'->>'alert_id' AS alert_id FROM events WHERE alert::jsonb->'labels'->>'alert_id' LIKE 'storm-%'",
        )
      ).rows.map((row) => [row.id, row.alert_id]),
    )
    const mails = smtp.mails.filter((mail) => alertOf.has(mail.headers['x-diagnostic-event'] ?? ''))
    const byEvent = new Map<string, Set<string>>()
    for (const mail of mails) {
      const event = mail.headers['x-diagnostic-event'] as string
      byEvent.set(event, (byEvent.get(event) ?? new Set()).add(`${mail.headers['message-id']} ${mail.subject}`))
    }
    const reported = new Set([...byEvent.keys()].map((event) => alertOf.get(event)))
    expect(acked.filter((id) => !reported.has(id))).toEqual([])
    // An alert reported without its 202 was committed by the victim just before it died, the
    // answer lost with it: Alertmanager sends it again and gets "duplicate". No other is.
    const victims = new Set(storm.filter((_, i) => i % 3 === 0))
    expect([...reported].filter((id) => !acked.includes(id as string) && !victims.has(id as string))).toEqual([])
    expect([...byEvent.values()].every((messages) => messages.size === 1)).toBe(true)
    replicas.splice(0, 1, await startReplica())
  }, 300_000)

  it('registers a rule on one replica that the others use; the same branch on two at once: one 201, one 409', async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica]
    const register = (replica: Replica, body: unknown) =>
      request(`${replica.url}/api/v1/rules`, {
        method: 'POST',
        ca: replica.ca,
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        timeoutMs: 30_000,
      })
    const rule = (branch: string, ruleName: string, pattern: string) => ({
      branch,
      ruleName,
      category: 'general',
      targetSource: 'local_file',
      pattern,
      assessment: 'Seen on another replica.',
      classification: 'confirmed_cause',
      confidence: 'high',
      recommendedActions: ['Check the replica that registered it.'],
    })
    const both = await Promise.all([
      register(a, rule('RP-01', 'ReplicaRuleA', 'replica-marker-a')),
      register(b, rule('RP-01', 'ReplicaRuleB', 'replica-marker-b')),
    ])
    expect(both.map((answer) => answer.status).sort()).toEqual([201, 409])
    await waitFor(
      async () => {
        const answer = await request(`${c.url}/api/v1/rules?limit=200`, {
          ca: c.ca,
          headers: { authorization: `Bearer ${token}` },
        })
        return answer.json().rules.some((r: { branch: string }) => r.branch === 'RP-01')
      },
      20_000,
      'replica c to list the rule registered elsewhere',
    )
  }, 120_000)

  it('loses and doubles nothing when PostgreSQL is stopped with -m immediate under load and started again', async () => {
    const acked: string[] = []
    const refused: number[] = []
    let stopped = false
    let restarted = false
    const readiness: number[] = []
    const load = inParallel(
      Array.from({ length: 400 }, (_, i) => `restart-${i}`),
      6,
      async (id, i) => {
        if (i === 100 && !stopped) {
          stopped = true
          postgres.stop('immediate')
          // While it is down every replica turns not ready by itself (storage_unavailable).
          for (const replica of replicas) {
            await waitFor(
              async () => {
                const health = await request(`${replica.url}/health/ready`, { ca: replica.ca })
                return health.status === 503 && health.text.includes('storage_unavailable')
              },
              30_000,
              'the replica not ready while PostgreSQL is down',
            )
            readiness.push(503)
          }
        }
        if (i === 250 && !restarted) {
          restarted = true
          postgres.start()
        }
        try {
          const answer = await (replicas[i % 3] as Replica).post(
            webhook([alert({ id, startsAt: '2026-11-24T05:20:00Z' })]),
          )
          if (answer.status === 202) acked.push(id)
          else refused.push(answer.status)
        } catch {
          // A connection cut: not acknowledged.
        }
      },
    )
    await load
    expect(readiness).toEqual([503, 503, 503])
    expect(refused.every((status) => status === 503)).toBe(true)
    expect(refused.length).toBeGreaterThan(0)
    await drained('everything acknowledged diagnosed and mailed after the restart')
    await expectOneReportEach('restart', acked)
    // Every replica is ready again by itself.
    for (const replica of replicas) {
      await waitFor(
        async () => (await request(`${replica.url}/health/ready`, { ca: replica.ca })).status === 200,
        60_000,
        'the replica ready again',
      )
    }
  }, 400_000)
})
