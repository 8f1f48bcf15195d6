import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config/load.js'
import { loadInventory } from '../evidence/inventory.js'
import { fileTransport, smtpTransport } from '../mail/mail-transport.js'
import { OutboxSender } from '../mail/outbox-sender.js'
import { batchedClaims } from '../queue/batched-claims.js'
import { WorkQueue } from '../queue/work-queue.js'
import { checkTemplates } from '../report/template-check.js'
import { loadTemplates } from '../report/templates.js'
import type { RulesService } from '../rules/rules-service.js'
import { seedCustomRules } from '../rules/seed.js'
import type { HeardOccurrences } from '../store/heard-occurrences.js'
import { Housekeeping } from '../store/housekeeping.js'
import { sqliteOutboxStore } from '../store/outbox-store.js'
import { pruneOlderThan } from '../store/retention.js'
import { sqliteWorkerStore } from '../store/worker-store.js'
import { WriteBatcher } from '../store/write-batcher.js'
import type { Analysis } from '../worker/analysis/analysis-pool.js'
import { createAnalysis } from '../worker/analysis/create-analysis.js'
import { processEvent } from '../worker/process-event.js'
import { QueueStallMonitor } from '../worker/queue-stall.js'
import { Worker } from '../worker/worker.js'
import type { Storage } from './storage.js'

/** What runs beside the HTTP server: the mail sender, the queue and its monitors, the analysis. */
export interface Background {
  sender: OutboxSender
  transport: { description: string }
  queue: WorkQueue
  stallMonitor: QueueStallMonitor
  housekeeping: Housekeeping
  /** The worker's group commit (claims, results). */
  batcher: WriteBatcher
  analysis: Analysis
}

export function createBackground(
  config: Config,
  storage: Storage,
  rules: RulesService,
  heard: HeardOccurrences,
  log: FastifyBaseLogger,
): Background {
  const { db, metrics, readiness, health } = storage
  const transport = config.smtpUrl
    ? smtpTransport(config.smtpUrl, config.mailFrom)
    : fileTransport(join(config.dataDir, 'outbox'), config.mailFrom)
  const sender = new OutboxSender(
    sqliteOutboxStore(db),
    transport,
    metrics,
    {
      maxAttempts: config.mailMaxAttempts,
      baseDelayMs: config.mailRetryBaseMs,
      maxDelayMs: 10 * 60_000,
      pollMs: 1000,
      batch: 16,
    },
    log.child({ component: 'mail' }),
    Date.now,
    health,
  )
  const queue = new WorkQueue(db, { leaseMs: config.leaseMs, maxExpiries: 3 })
  const stallMonitor = new QueueStallMonitor(
    () => {
      const depth = queue.depth()
      return { queued: depth.queued ?? 0, finished: (depth.done ?? 0) + (depth.failed ?? 0) }
    },
    readiness,
    { capacity: config.queueCapacity, stallMs: config.queueStallSeconds * 1000, everyMs: 1000 },
  )
  const housekeeping = new Housekeeping(
    (cutoff) => {
      const pruned = pruneOlderThan(db, cutoff, heard)
      transport.forget?.(pruned.eventIds)
      return pruned.records
    },
    metrics,
    { retentionDays: config.retentionDays, intervalMs: 3_600_000 },
    log.child({ component: 'housekeeping' }),
    Date.now,
    health,
  )
  const analysis = createAnalysis(
    config.analysisThreads,
    () => rules.catalogue,
    log.child({ component: 'analysis' }),
    {
      timeoutMs: config.analysisTimeoutMs,
      onTimeout: (bound) => metrics.analysisTimeouts.inc({ bound }),
    },
    config.redaction,
  )
  // A committed rule goes to every live engine (docs/design.md, "Rules").
  rules.onRegistered((rule) => analysis.addCustomRule(rule))
  const batcher = new WriteBatcher(db, { name: 'worker', health })
  return { sender, transport, queue, stallMonitor, housekeeping, batcher, analysis }
}

/**
 * What must hold before the service is ready (D26): the database intact, the seed
 * registered once (D29), the inventory and templates loaded and rendering, the analysis
 * threads running. Throws the first failure.
 */
export async function checkStartup(
  config: Config,
  storage: Storage,
  rules: RulesService,
  background: Background,
  log: FastifyBaseLogger,
) {
  const check = storage.db.pragma('quick_check', { simple: true })
  if (check !== 'ok') throw new Error(`database quick_check: ${String(check)}`)
  const seeded = await seedCustomRules(rules)
  if (seeded > 0) log.info({ rules: seeded }, 'registered the seed rulepack (D29)')
  const inventory = loadInventory(config.inventoryFile)
  const templates = loadTemplates(config.templatesDir)
  checkTemplates(templates)
  await background.analysis.ready()
  return { inventory, templates }
}

/** Starts the sender, the monitors and (unless DIAG_WORKER=off) the worker, which it returns. */
export function startBackground(
  config: Config,
  storage: Storage,
  background: Background,
  checked: Awaited<ReturnType<typeof checkStartup>>,
  version: string,
  log: FastifyBaseLogger,
): Worker {
  const { sender, queue, batcher, analysis } = background
  const deps = {
    store: sqliteWorkerStore(storage.db, batcher, queue),
    inventory: checked.inventory,
    analysis,
    templates: checked.templates,
    mailTo: config.mailTo,
    version,
    httpTimeoutMs: config.httpTimeoutMs,
    followWaitMs: config.followWaitSeconds * 1000,
    now: () => new Date(),
    diagnosisLatency: storage.metrics.diagnosisLatency,
  }
  const worker = new Worker(
    batchedClaims(queue, batcher),
    async (lease, completed) => {
      const outcome = await processEvent(lease.eventId, deps, { lease, completed })
      sender.kick()
      return outcome
    },
    storage.metrics,
    {
      concurrency: config.workerConcurrency,
      leaseMs: config.leaseMs,
      sweepMs: Math.max(500, Math.floor(config.leaseMs / 4)),
      pollMs: 1000,
      maxAttempts: 5,
      retryBaseMs: 5000,
      hostFaultDelayMs: 5000,
    },
    log.child({ component: 'worker' }),
  )
  sender.start()
  background.housekeeping.start()
  background.stallMonitor.start()
  if (config.workerEnabled) worker.start()
  log.info(
    {
      mail: background.transport.description,
      inventory: config.inventoryFile,
      worker: config.workerEnabled,
      analysisThreads: config.analysisThreads,
    },
    'worker ready',
  )
  return worker
}
