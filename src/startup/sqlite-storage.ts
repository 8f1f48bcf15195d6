import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { Counter } from 'prom-client'
import { createMetrics, sqliteFileSize } from '../metrics.js'
import { batchedClaims } from '../queue/batched-claims.js'
import { WorkQueue } from '../queue/work-queue.js'
import { Readiness } from '../readiness.js'
import { sqliteConsoleStore } from '../store/sqlite/console-store.js'
import { closeDatabase, type DatabaseOptions, openDatabase, walSync } from '../store/sqlite/database.js'
import { EventWriter, type EventWriterCounters } from '../store/sqlite/event-writer.js'
import { sqliteEvidenceBundles } from '../store/sqlite/evidence-bundles.js'
import { expireOccurrences } from '../store/sqlite/expiry.js'
import { IncidentsRepository } from '../store/sqlite/incidents-repository.js'
import type { MigrationLog } from '../store/sqlite/migrate.js'
import { sqliteOutboxStats } from '../store/sqlite/outbox-stats.js'
import { sqliteOutboxStore } from '../store/sqlite/outbox-store.js'
import { queueStats } from '../store/sqlite/queue-stats.js'
import { pruneOlderThan } from '../store/sqlite/retention.js'
import { RulesRepository } from '../store/sqlite/rules-repository.js'
import type { CheckpointSite } from '../store/sqlite/wal-checkpoints.js'
import { sqliteWorkerStore } from '../store/sqlite/worker-store.js'
import { WriteBatcher } from '../store/sqlite/write-batcher.js'
import { StorageHealth } from '../store/storage-health.js'
import type { Storage } from './storage.js'

/** The embedded default: one SQLite file in the data directory, migrated (docs/design.md, "Storage"). */
export function openSqliteStorage(
  dataDir: string,
  version: string,
  leaseMs: number,
  migrationLog?: MigrationLog,
  databaseOptions: Pick<DatabaseOptions, 'wrapSync'> = {},
): Storage {
  const dbFile = join(dataDir, 'diagnostic.db')
  // The storage health exists once the metrics do; a sync cannot fail before (nothing to sync).
  let health: StorageHealth | undefined
  // The metrics and the app's logger exist once the database does; a checkpoint is asked for
  // only after a sync, so none is missed.
  let checkpointed: Counter<'site'> | undefined
  let log: FastifyBaseLogger | undefined
  const db = openDatabase(dbFile, migrationLog, {
    ...databaseOptions,
    onSyncFailure: (error) => health?.failed('wal_sync', error),
    checkpoints: {
      onCheckpoint: (site) => checkpointed?.inc({ site }),
      onFailure: (error) => log?.warn({ err: error }, 'WAL checkpoint failed on its thread; tried again at the next'),
    },
  })
  const wal = walSync(db)
  const metrics = createMetrics({
    version,
    queue: queueStats(db),
    sizeBytes: sqliteFileSize(dbFile),
    outbox: sqliteOutboxStats(db),
  })
  checkpointed = new Counter({
    name: 'diagnostic_wal_checkpoints_total',
    help: "SQLite checkpoints of the WAL into the database file, by where they ran: checkpoint_thread (the service's own thread), event_loop (the WAL passed its bound: the thread fell behind or is gone)",
    labelNames: ['site'],
    registers: [metrics.registry],
  })
  for (const site of ['checkpoint_thread', 'event_loop'] satisfies CheckpointSite[]) checkpointed.inc({ site }, 0)
  const readiness = new Readiness(metrics.ready)
  // A one-row write in its own IMMEDIATE transaction, synced: it needs the write lock, a
  // page of the journal and its sync, as every real write does (after a failed sync it
  // never succeeds: wal-sync.ts).
  const touch = db.prepare("UPDATE queue_depth SET items = items WHERE status = 'done'")
  const probe = db.transaction(() => touch.run())
  health = new StorageHealth(
    async () => {
      probe.immediate()
      await wal.durable()
    },
    readiness,
    metrics,
    {
      info: (obj, msg) => log?.info(obj, msg),
      error: (obj, msg) => log?.error(obj, msg),
    },
    { probeMs: 1000 },
  )
  const queue = new WorkQueue(db, { leaseMs, maxExpiries: 3 })
  // The worker's group commit: claims and results of one turn of the event loop share a commit.
  const batcher = new WriteBatcher(db, { name: 'worker', health })
  // Its duplicates' hearing counts for retention.
  let writer: EventWriter | undefined
  const counters: EventWriterCounters = { commits: metrics.ingestCommits, untrusted: metrics.untrustedTimestamps }
  return {
    kind: 'sqlite',
    sqlite: db,
    metrics,
    readiness,
    health,
    useLog: (appLog) => {
      log = appLog.child({ component: 'storage' })
    },
    ingest: (options) => {
      writer = new EventWriter(db, { ...options, ...counters, health })
      return writer
    },
    rules: async () => new RulesRepository(db, health),
    incidents: new IncidentsRepository(db),
    bundles: sqliteEvidenceBundles(db),
    console: sqliteConsoleStore(db),
    queue: batchedClaims(queue, batcher),
    queueCounts: () => {
      const depth = queue.depth()
      return { queued: depth.queued ?? 0, finished: (depth.done ?? 0) + (depth.failed ?? 0) }
    },
    workerStore: sqliteWorkerStore(db, batcher, queue),
    outbox: sqliteOutboxStore(db),
    prune: (cutoff) => pruneOlderThan(db, cutoff, writer?.heard),
    expire: (cutoff, now) => expireOccurrences(db, cutoff, now, writer?.heard),
    check: async () => {
      const check = db.pragma('quick_check', { simple: true })
      if (check !== 'ok') throw new Error(`database quick_check: ${String(check)}`)
    },
    // One process owns the file: every rule is registered here.
    followRules: async () => ({ fresh: async () => {}, stop: async () => {} }),
    registerReplica: async () => ({ stop: async () => {} }),
    flush: () => batcher.flush(),
    close: () => closeDatabase(db),
  }
}
