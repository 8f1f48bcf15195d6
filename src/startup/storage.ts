import { chmodSync, mkdirSync } from 'node:fs'
import type { FastifyBaseLogger } from 'fastify'
import type { RedactionOptions } from '../evidence/redaction-options.js'
import type { OutboxStore } from '../mail/outbox-sender.js'
import type { Metrics } from '../metrics.js'
import type { Readiness } from '../readiness.js'
import type { RulesService } from '../rules/rules-service.js'
import type { CustomRuleStore } from '../rules/types.js'
import type { ConsoleStore } from '../store/console-port.js'
import type { EvidenceBundleStore } from '../store/evidence-bundles.js'
import type { ExpiredOccurrence } from '../store/incident-expiry.js'
import type { IncidentsReader } from '../store/incident-views.js'
import type { IngestStore } from '../store/ingest-port.js'
import type { ReplicaFacts } from '../store/postgres/replicas.js'
import type { Db } from '../store/sqlite/database.js'
import type { Pruned } from '../store/sqlite/retention.js'
import type { StorageHealth } from '../store/storage-health.js'
import type { Awaitable, QueuePort, WorkerStore } from '../worker/ports.js'
import type { QueueCounts } from '../worker/queue-stall.js'

/** What an ingest store is built with, whichever the database. */
export interface IngestOptions {
  queueCapacity: number
  clockSkewMs: number
  redaction: RedactionOptions
  onQueued: () => void
}

/**
 * The storage of the service, one port for both adapters (docs/design.md, "Storage"):
 * SQLite, the embedded default (startup/sqlite-storage.ts), or PostgreSQL for replicas
 * (startup/postgres-storage.ts), chosen by DIAG_DATABASE_URL.
 */
export interface Storage {
  kind: 'sqlite' | 'postgres'
  /** The SQLite database, when that is the storage. */
  sqlite: Db | undefined
  metrics: Metrics
  readiness: Readiness
  /** Whether the database takes writes (docs/operations.md). */
  health: StorageHealth
  /** Gives the storage health its logger, once the app (which owns it) exists. */
  useLog(log: FastifyBaseLogger): void
  ingest(options: IngestOptions): IngestStore
  /** The custom rules, loaded. */
  rules(): Promise<CustomRuleStore>
  incidents: IncidentsReader
  /** The diagnosed events' evidence bundles (docs/design.md, "Stored evidence"): the replay reads them. */
  bundles: EvidenceBundleStore
  /** The web console's sessions and reads (docs/design.md, "The web console"). */
  console: ConsoleStore
  /** The worker's queue and store; `queue.complete` also runs inside a result's commit. */
  queue: QueuePort
  queueCounts(): Awaitable<QueueCounts>
  workerStore: WorkerStore
  outbox: OutboxStore
  /** Retention, the ingest store's unwritten hearing first; undefined when another replica runs it. */
  prune(cutoff: number): Awaitable<Pruned | undefined>
  /** Closes the open occurrences last heard before `cutoff` as expired, the unwritten hearing first. */
  expire(cutoff: number, now: number): Awaitable<ExpiredOccurrence[]>
  /** The database is usable: SQLite's quick_check, PostgreSQL's answer. */
  check(): Promise<void>
  /**
   * Rules registered by other replicas reach `rules`' engines (PostgreSQL); `fresh` is the
   * catalogue version check made before each diagnosis.
   */
  followRules(rules: RulesService): Promise<{ fresh(): Promise<void>; stop(): Promise<void> }>
  /**
   * Registers this replica with its facts and keeps its heartbeat (PostgreSQL); the replica
   * gauges then count the cluster. Nothing to do for SQLite's one process.
   */
  registerReplica(facts: () => ReplicaFacts): Promise<{ stop(): Promise<void> }>
  /** Writes what waits in memory (group commits) before the storage closes. */
  flush(): void
  close(): Promise<void>
}

/** The data directory, owner only, also when an older version or an operator made it wider. */
export function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  chmodSync(dataDir, 0o700)
}
