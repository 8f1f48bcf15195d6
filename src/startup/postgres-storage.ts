import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import { createMetrics } from '../metrics.js'
import { Readiness } from '../readiness.js'
import { pgConsoleStore } from '../store/postgres/console-store.js'
import { PgEventWriter } from '../store/postgres/event-writer.js'
import { pgEvidenceBundles } from '../store/postgres/evidence-bundles.js'
import { pgExpireOccurrences } from '../store/postgres/expiry.js'
import { pgDatabaseSize, pgProbe, pgPruneOlderThan, pgQueueStats } from '../store/postgres/housekeeping.js'
import { PgIncidentsRepository } from '../store/postgres/incidents-repository.js'
import { migratePostgres } from '../store/postgres/migrate.js'
import { pgOutboxStats } from '../store/postgres/outbox-stats.js'
import { pgOutboxStore } from '../store/postgres/outbox-store.js'
import { createPool } from '../store/postgres/pool.js'
import { ReplicaRegistry } from '../store/postgres/replicas.js'
import { RuleNotifications } from '../store/postgres/rule-notifications.js'
import { PgRulesRepository } from '../store/postgres/rules-repository.js'
import { PgWorkQueue } from '../store/postgres/work-queue.js'
import { pgWorkerStore } from '../store/postgres/worker-store.js'
import type { MigrationLog } from '../store/sqlite/migrate.js'
import { StorageHealth } from '../store/storage-health.js'
import type { Storage } from './storage.js'

export interface PostgresOptions {
  url: string
  poolSize: number
  /** How long a request waits for the database before it is a storage fault (503). */
  timeoutMs: number
  /** How long a replica's claim on a mail holds: longer than a send can take (SMTP's time-outs add up to 50 s). */
  mailClaimMs: number
  leaseMs: number
  version: string
  /** Where each migration this start runs is said. */
  migrationLog?: MigrationLog
}

/**
 * PostgreSQL, shared by the replicas (docs/design.md, "Storage"; docs/operations.md,
 * "PostgreSQL"): one pool, migrations under an advisory lock, every room of the SQLite
 * adapter in its PostgreSQL form.
 */
export async function openPostgresStorage(options: PostgresOptions): Promise<Storage> {
  const pool = createPool(options.url, { timeoutMs: options.timeoutMs, max: options.poolSize })
  await migratePostgres(pool, undefined, options.migrationLog)
  const metrics = createMetrics({
    version: options.version,
    queue: pgQueueStats(pool),
    sizeBytes: pgDatabaseSize(pool),
    outbox: pgOutboxStats(pool),
  })
  const readiness = new Readiness(metrics.ready)
  let log: FastifyBaseLogger | undefined
  const health = new StorageHealth(
    pgProbe(pool),
    readiness,
    metrics,
    {
      info: (obj, msg) => log?.info(obj, msg),
      error: (obj, msg) => log?.error(obj, msg),
    },
    { probeMs: 1000 },
  )
  const queue = new PgWorkQueue(pool, { leaseMs: options.leaseMs, maxExpiries: 3 })
  const rules = new PgRulesRepository(pool)
  const outbox = pgOutboxStore(pool, { claimMs: options.mailClaimMs })
  // Its duplicates' hearing counts for retention.
  let writer: PgEventWriter | undefined
  return {
    kind: 'postgres',
    sqlite: undefined,
    metrics,
    readiness,
    health,
    useLog: (appLog) => {
      log = appLog.child({ component: 'storage' })
    },
    ingest: (ingestOptions) => {
      writer = new PgEventWriter(pool, {
        ...ingestOptions,
        untrusted: metrics.untrustedTimestamps,
        retries: metrics.storageRetries,
        health,
      })
      return writer
    },
    rules: async () => {
      await rules.load()
      return rules
    },
    incidents: new PgIncidentsRepository(pool),
    bundles: pgEvidenceBundles(pool),
    console: pgConsoleStore(pool),
    queue,
    queueCounts: async () => {
      const depth = await queue.depth()
      return { queued: depth.queued ?? 0, finished: (depth.done ?? 0) + (depth.failed ?? 0) }
    },
    workerStore: pgWorkerStore(pool),
    outbox,
    prune: (cutoff) => pgPruneOlderThan(pool, cutoff, writer?.heard),
    expire: (cutoff, now) => pgExpireOccurrences(pool, cutoff, now, writer?.heard),
    check: async () => {
      await pool.query('SELECT 1')
    },
    followRules: async (service) => {
      const known = () => new Set(service.catalogue.custom.map((rule) => rule.id))
      const notifications = new RuleNotifications(options.url, rules, known, (rule) => service.adopt(rule), {
        warn: (obj, msg) => log?.warn(obj, msg),
      })
      await notifications.start()
      return notifications
    },
    registerReplica: async (facts) => {
      const registry = new ReplicaRegistry(
        pool,
        `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
        hostname(),
        facts,
      )
      metrics.replicas.census = () => registry.census()
      registry.start((error) => log?.warn({ err: error }, 'replica heartbeat failed'))
      return registry
    },
    flush: () => {},
    close: () => pool.end(),
  }
}
