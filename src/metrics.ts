import { statSync } from 'node:fs'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { type OperationsMetrics, type OutboxStats, operationsMetrics } from './operations-metrics.js'

// Every metric family of the service (spec "Metric families", D26, D27). One registry per
// app instance, so tests can run several apps in one process without sharing counters.

// Diagnoses, evidence failures, HTTP durations, mails waiting, credential expiry: operations-metrics.ts.
export interface Metrics extends OperationsMetrics {
  registry: Registry
  ready: Gauge
  dbSizeBytes: Gauge
  staleLocksRecovered: Counter
  staleLocksExhausted: Counter
  recordsPruned: Counter
  housekeepingRuns: Counter
  workerFailures: Counter
  notificationsSent: Counter
  notificationsFailed: Counter
  mailFailures: Counter<'reason'>
  alertsReceived: Counter<'outcome'>
  ingestCommits: Counter
  connectionsRefused: Counter<'reason'>
  connectionsOpen: Gauge
  connectionsMax: Gauge
  analysisTimeouts: Counter<'bound'>
  analysisThreads: Gauge
  memoryCollections: Counter<'step'>
  alertTransitions: Counter<'transition'>
  fingerprintMismatches: Counter
  untrustedTimestamps: Counter<'field'>
  storageRetries: Counter<'code'>
  storageWritable: Gauge
  storageFaults: Counter<'operation'>
  requestsRejected: Counter<'reason'>
  webhooksRefused: Counter<'reason'>
  diagnosisLatency: Histogram
  /** Where the replica gauges read the cluster from; set once the replicas are known. */
  replicas: { census: () => ReplicaCensus | Promise<ReplicaCensus> }
}

/** Why a mail could not be handed to the relay (mail/relay-failure.ts decides). */
export const mailFailureReasons = ['auth', 'tls', 'connection', 'rejected', 'deferred', 'other'] as const
export type MailFailureReason = (typeof mailFailureReasons)[number]

/** Why a webhook was refused (src/http/alerts/refused-webhooks.ts): a bounded set of label values. */
export const webhookRefusalReasons = [
  'missing_label',
  'invalid_label',
  'missing_field',
  'invalid_time',
  'invalid_value',
  'invalid_json',
  'empty_body',
  'too_large',
  'unsupported_media_type',
  'malformed',
] as const
export type WebhookRefusalReason = (typeof webhookRefusalReasons)[number]

/** The replicas sharing the storage as one replica sees them (store/postgres/replicas.ts). */
export interface ReplicaCensus {
  live: number
  differing: { version: number; catalogue: number; inventory: number }
}

/** The queue as a scrape sees it (src/store/sqlite/queue-stats.ts). */
export interface QueueStats {
  queued: number
  processing: number
  /** When the oldest event still waiting was queued (epoch ms), or null when none waits. */
  oldestQueuedAt: number | null
}

function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/** What the scrape reads from storage: synchronously on SQLite, asynchronously on PostgreSQL. */
export interface StorageGauges {
  queue: () => QueueStats | Promise<QueueStats>
  /** The database's size in bytes (SQLite: the file and its WAL; PostgreSQL: pg_database_size). */
  sizeBytes: () => number | Promise<number>
  /** The outbox's pending and retrying mails (operations-metrics.ts). */
  outbox: () => OutboxStats | Promise<OutboxStats>
}

/** The size of a SQLite database: its file and its write-ahead log. */
export const sqliteFileSize = (dbFile: string) => () => fileSize(dbFile) + fileSize(`${dbFile}-wal`)

export function createMetrics(options: { version: string } & StorageGauges): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  // These default gauges end in _total, which `promtool check metrics` rejects as a lie.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name)
  }
  const registers = [registry]

  new Gauge({
    name: 'diagnostic_build_info',
    help: 'Build information of the diagnostic service; the value is always 1',
    labelNames: ['version', 'node_version'],
    registers,
  }).set({ version: options.version, node_version: process.versions.node }, 1)

  const counter = (name: string, help: string) => new Counter({ name, help, registers })
  // One process on SQLite is the whole cluster; PostgreSQL's replicas replace this.
  const replicas = {
    census: (): ReplicaCensus | Promise<ReplicaCensus> => ({
      live: 1,
      differing: { version: 0, catalogue: 0, inventory: 0 },
    }),
  }
  let census: ReplicaCensus | undefined
  new Gauge({
    name: 'diagnostic_replicas_live',
    help: 'Replicas of the service sharing this storage that were heard within three heartbeats (1 on SQLite)',
    registers,
    async collect() {
      census = await replicas.census()
      this.set(census.live)
    },
  })
  new Gauge({
    name: 'diagnostic_replicas_differing',
    help: 'Live replicas whose version, rule catalogue or inventory differs from this one: they would diagnose the same alert differently',
    labelNames: ['what'],
    registers,
    async collect() {
      const seen = census ?? (await replicas.census())
      census = undefined
      for (const what of ['version', 'catalogue', 'inventory'] as const) this.set({ what }, seen.differing[what])
    },
  })
  // Read once per scrape for both queue gauges.
  let stats: QueueStats | undefined
  new Gauge({
    name: 'diagnostic_queue_depth',
    help: 'Events in the work queue, by status: queued (waiting for the worker) or processing',
    labelNames: ['status'],
    registers,
    async collect() {
      stats = await options.queue()
      this.set({ status: 'queued' }, stats.queued)
      this.set({ status: 'processing' }, stats.processing)
    },
  })
  new Gauge({
    name: 'diagnostic_queue_oldest_age_seconds',
    help: 'How long the oldest event still waiting in the queue has waited; 0 when none waits',
    registers,
    async collect() {
      const oldest = (stats ?? (await options.queue())).oldestQueuedAt
      stats = undefined
      this.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000))
    },
  })

  return {
    registry,
    ...operationsMetrics(registers, options.outbox),
    ready: new Gauge({
      name: 'diagnostic_service_ready',
      help: '1 when ready, 0 when unavailable, starting or shutting down',
      registers,
    }),
    dbSizeBytes: new Gauge({
      name: 'diagnostic_db_size_bytes',
      help: 'Size of the database in bytes (SQLite: its file and write-ahead log)',
      registers,
      async collect() {
        // Measured at scrape time, so the value is always current.
        this.set(await options.sizeBytes())
      },
    }),
    staleLocksRecovered: counter(
      'diagnostic_stale_locks_recovered_total',
      'Stuck queue items re-queued automatically after their lease expired',
    ),
    staleLocksExhausted: counter(
      'diagnostic_stale_locks_exhausted_total',
      'Stuck tasks that reached the maximum of 3 retries and were marked permanently failed',
    ),
    recordsPruned: counter('diagnostic_records_pruned_total', 'Historical records removed by retention housekeeping'),
    housekeepingRuns: counter('diagnostic_housekeeping_runs_total', 'Retention housekeeping runs'),
    workerFailures: counter('diagnostic_worker_failures_total', 'Unexpected failures of the background worker loop'),
    notificationsSent: counter('diagnostic_notifications_sent_total', 'Diagnosis reports delivered by SMTP'),
    notificationsFailed: counter(
      'diagnostic_notifications_failed_total',
      'Reports that failed after retries were exhausted',
    ),
    mailFailures: withSeries(
      new Counter({
        name: 'diagnostic_mail_failures_total',
        help: 'Attempts to hand a mail to the SMTP relay that failed, by reason: auth (the relay refused the login), tls (the relay is not trusted, or offers no STARTTLS where it is required), connection (refused, timed out or cut), rejected (5xx), deferred (4xx), other',
        labelNames: ['reason'],
        registers,
      }),
      'reason',
      [...mailFailureReasons],
    ),
    ingestCommits: counter(
      'diagnostic_ingest_commits_total',
      'Transactions that committed webhook requests; concurrent requests share one (group commit)',
    ),
    analysisTimeouts: withSeries(
      new Counter({
        name: 'diagnostic_analysis_timeouts_total',
        help: 'Log analyses stopped, their thread replaced and the gap reported: over DIAG_ANALYSIS_TIMEOUT_MS of CPU time (cpu), or unfinished at the wall-clock backstop (wall)',
        labelNames: ['bound'],
        registers,
      }),
      'bound',
      ['cpu', 'wall'],
    ),
    analysisThreads: new Gauge({
      name: 'diagnostic_analysis_threads',
      help: 'Analysis threads running; 0 once retired after DIAG_ANALYSIS_IDLE_SECONDS without an analysis, until the next event',
      registers,
    }),
    memoryCollections: withSeries(
      new Counter({
        name: 'diagnostic_memory_collections_total',
        help: 'Memory given back when the work stopped: every isolate collected after DIAG_ANALYSIS_QUIET_SECONDS without an analysis (quiet), the analysis threads retired after DIAG_ANALYSIS_IDLE_SECONDS (retired)',
        labelNames: ['step'],
        registers,
      }),
      'step',
      ['quiet', 'retired'],
    ),
    connectionsRefused: new Counter({
      name: 'diagnostic_connections_refused_total',
      help: 'Connections closed by a bound: total_connections, anonymous_connections, connection_rate, pipelined_requests, unread_responses, token_connections, read_connections',
      labelNames: ['reason'],
      registers,
    }),
    connectionsOpen: new Gauge({
      name: 'diagnostic_connections_open',
      help: 'Client connections open (TCP accepted, not yet closed)',
      registers,
    }),
    connectionsMax: new Gauge({
      name: 'diagnostic_connections_max',
      help: 'The bound on client connections open at once (DIAG_MAX_CONNECTIONS, or the open-files limit less the reserve)',
      registers,
    }),
    alertsReceived: withSeries(
      new Counter({
        name: 'diagnostic_alerts_received_total',
        help: 'Alerts received on the webhook, by outcome (queued for a mail, recorded without one, or duplicate)',
        labelNames: ['outcome'],
        registers,
      }),
      'outcome',
      ['queued', 'recorded', 'duplicate'],
    ),
    alertTransitions: new Counter({
      name: 'diagnostic_alert_transitions_total',
      help: 'What received alerts did to their incidents (docs/design.md, Incidents): opened, refired, resolved, resolved_merged, unmatched_resolution, superseded, expired, reopened, ...',
      labelNames: ['transition'],
      registers,
    }),
    storageWritable: new Gauge({
      name: 'diagnostic_storage_writable',
      help: 'Whether the database takes writes: 0 while a full disk, an I/O error or a lock held by another process stops them',
      registers,
    }),
    storageFaults: new Counter({
      name: 'diagnostic_storage_faults_total',
      help: 'Writes that failed for a fault of the host (disk full, I/O error, database locked), by operation',
      labelNames: ['operation'],
      registers,
    }),
    requestsRejected: new Counter({
      name: 'diagnostic_requests_rejected_total',
      help: 'Requests answered with an error, by its code: unauthorized, forbidden, invalid_alert_payload, rate_limited, queue_full, storage_unavailable, ...',
      labelNames: ['reason'],
      registers,
    }),
    webhooksRefused: withSeries(
      new Counter({
        name: 'diagnostic_webhooks_refused_total',
        help: 'Webhook requests refused with a 4xx, by reason: Alertmanager drops the whole group (docs/operations.md, "A refused webhook")',
        labelNames: ['reason'],
        registers,
      }),
      'reason',
      webhookRefusalReasons,
    ),
    replicas,
    diagnosisLatency: new Histogram({
      name: 'diagnostic_diagnosis_latency_seconds',
      help: 'From the receipt of an alert to its report committed for delivery (queue wait, evidence, rules and rendering)',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers,
    }),
    fingerprintMismatches: counter(
      'diagnostic_fingerprint_mismatches_total',
      'Alerts whose sender-claimed fingerprint is not the fingerprint of their labels (ignored; the labels decide)',
    ),
    storageRetries: new Counter({
      name: 'diagnostic_storage_retries_total',
      help: 'Ingest transactions run again on PostgreSQL after a lost race (23505), a serialization failure (40001) or a deadlock (40P01), by SQLSTATE',
      labelNames: ['code'],
      registers,
    }),
    untrustedTimestamps: withSeries(
      new Counter({
        name: 'diagnostic_untrusted_timestamps_total',
        help: 'Alert timestamps not believed: further ahead of their receipt than DIAG_CLOCK_SKEW_SECONDS (a sender clock gone wrong)',
        labelNames: ['field'],
        registers,
      }),
      'field',
      ['startsAt', 'endsAt'],
    ),
  }
}

/**
 * Every outcome is a series from the start, at 0, so that a rate over it exists before the
 * first event of its kind (and the webhook need not add zeros on each request).
 */
function withSeries<L extends string>(counter: Counter<L>, label: L, values: readonly string[]): Counter<L> {
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<L, string>>, 0)
  return counter
}
