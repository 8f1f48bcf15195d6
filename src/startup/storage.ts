import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { createMetrics, type Metrics, sqliteFileSize } from '../metrics.js'
import { Readiness } from '../readiness.js'
import { type Db, openDatabase } from '../store/database.js'
import { queueStats } from '../store/queue-stats.js'
import { StorageHealth } from '../store/storage-health.js'

export interface Storage {
  db: Db
  metrics: Metrics
  readiness: Readiness
  /** Whether the database takes writes (docs/operations.md). */
  health: StorageHealth
  /** Gives the storage health its logger, once the app (which owns it) exists. */
  useLog(log: FastifyBaseLogger): void
}

/** The data directory, owner only, also when an older version or an operator made it wider. */
export function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  chmodSync(dataDir, 0o700)
}

/** The database (migrated), the metrics, readiness, and the health of the storage. */
export function openStorage(dataDir: string, version: string): Storage {
  const dbFile = join(dataDir, 'diagnostic.db')
  const db = openDatabase(dbFile)
  const metrics = createMetrics({ version, queue: queueStats(db), sizeBytes: sqliteFileSize(dbFile) })
  const readiness = new Readiness(metrics.ready)
  // The app's logger exists once the app does; no write can fail before that.
  let log: FastifyBaseLogger | undefined
  // A one-row write in its own IMMEDIATE transaction: it needs the write lock and a page
  // of the journal, as every real write does.
  const touch = db.prepare("UPDATE queue_depth SET items = items WHERE status = 'done'")
  const probe = db.transaction(() => touch.run())
  const health = new StorageHealth(
    () => {
      probe.immediate()
    },
    readiness,
    metrics,
    {
      info: (obj, msg) => log?.info(obj, msg),
      error: (obj, msg) => log?.error(obj, msg),
    },
    { probeMs: 1000 },
  )
  return {
    db,
    metrics,
    readiness,
    health,
    useLog: (appLog) => {
      log = appLog.child({ component: 'storage' })
    },
  }
}
