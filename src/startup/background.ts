import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config/load.js'
import { loadInventory } from '../evidence/inventory.js'
import { fileTransport, smtpTransport } from '../mail/mail-transport.js'
import { OutboxSender } from '../mail/outbox-sender.js'
import { checkTemplates } from '../report/template-check.js'
import { loadTemplates } from '../report/templates.js'
import type { RulesService } from '../rules/rules-service.js'
import { seedCustomRules } from '../rules/seed.js'
import { Housekeeping } from '../store/housekeeping.js'
import type { Analysis } from '../worker/analysis/analysis-pool.js'
import { createAnalysis } from '../worker/analysis/create-analysis.js'
import { collectGarbage } from '../worker/analysis/idle-period.js'
import { processEvent } from '../worker/process-event.js'
import { QueueStallMonitor } from '../worker/queue-stall.js'
import { Worker } from '../worker/worker.js'
import { type QuietCollection, quietDuringAnalysis } from './quiet-collection.js'
import type { Storage } from './storage.js'

/** What runs beside the HTTP server: the mail sender, the queue and its monitors, the analysis. */
export interface Background {
  sender: OutboxSender
  transport: { description: string }
  stallMonitor: QueueStallMonitor
  housekeeping: Housekeeping
  analysis: Analysis
  quiet: QuietCollection
}

export function createBackground(
  config: Config,
  storage: Storage,
  rules: RulesService,
  log: FastifyBaseLogger,
  /** The service's quiet stretches (requests and analyses), when memory is given back. */
  quiet: QuietCollection,
): Background {
  const { metrics, readiness, health } = storage
  const transport = config.smtp
    ? smtpTransport(config.smtp, config.mailFrom, (reason) => metrics.mailFailures.inc({ reason }))
    : fileTransport(join(config.dataDir, 'outbox'), config.mailFrom)
  const sender = new OutboxSender(
    storage.outbox,
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
  const stallMonitor = new QueueStallMonitor(() => storage.queueCounts(), readiness, {
    capacity: config.queueCapacity,
    stallMs: config.queueStallSeconds * 1000,
    everyMs: 1000,
  })
  const housekeeping = new Housekeeping(
    (cutoff) => {
      const pruned = storage.prune(cutoff)
      const removed = (done: Awaited<typeof pruned>) => {
        if (done) transport.forget?.(done.eventIds)
        return done?.records ?? 0
      }
      return pruned instanceof Promise ? pruned.then(removed) : removed(pruned)
    },
    metrics,
    { retentionDays: config.retentionDays, intervalMs: 3_600_000 },
    log.child({ component: 'housekeeping' }),
    Date.now,
    health,
    {
      expire: (cutoff, now) => storage.expire(cutoff, now),
      hours: config.incidentExpiryHours,
      expired: { inc: (n) => metrics.alertTransitions.inc({ transition: 'expired' }, n) },
    },
    { purge: (now) => storage.console.purgeSessions(now) },
  )
  const analysisLog = log.child({ component: 'analysis' })
  const analysis = createAnalysis(
    config.analysisThreads,
    () => rules.catalogue,
    analysisLog,
    {
      timeoutMs: config.analysisTimeoutMs,
      onTimeout: (bound) => metrics.analysisTimeouts.inc({ bound }),
    },
    config.redaction,
    {
      idleMs: config.analysisIdleMs,
      onThreads: (running) => metrics.analysisThreads.set(running),
      // Idle for the period: one full collection of the main isolate as well.
      onRetired: () => {
        const collectedMs = collectGarbage()
        metrics.memoryCollections.inc({ step: 'retired' })
        analysisLog.info({ collected: collectedMs !== null, collectedMs }, 'idle: analysis threads retired')
      },
    },
  )
  // Quiet: the threads' isolates, then the main one's (docs/design.md, "Memory is given back
  // when the work stops"); counted once all are done, the signal the benchmarks wait for.
  quiet.onQuiet(async () => {
    try {
      const collectedThreads = await analysis.collect()
      const collectedMs = collectGarbage()
      metrics.memoryCollections.inc({ step: 'quiet' })
      analysisLog.info({ threads: collectedThreads, collectedMs }, 'quiet: memory collected')
    } catch (error) {
      analysisLog.error({ err: error }, 'quiet: memory not collected')
    }
  })
  // A committed rule goes to every live engine (docs/design.md, "Rules").
  rules.onRegistered((rule) => analysis.addCustomRule(rule))
  return { sender, transport, stallMonitor, housekeeping, analysis, quiet }
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
  /** Rules other replicas committed (PostgreSQL), taken before and after seeding. */
  rulesFresh: () => Promise<void> = async () => {},
) {
  await storage.check()
  const seeded = await seedCustomRules(rules, undefined, rulesFresh)
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
  /** The catalogue version check before each diagnosis (rules of other replicas). */
  rulesFresh: () => Promise<void>,
): Worker {
  const { sender, analysis, quiet } = background
  const deps = {
    store: storage.workerStore,
    rulesFresh,
    inventory: checked.inventory,
    // The worker's analyses keep the service from being quiet.
    analysis: quietDuringAnalysis(analysis, quiet),
    templates: checked.templates,
    mailTo: config.mailTo,
    version,
    httpTimeoutMs: config.httpTimeoutMs,
    followWaitMs: config.followWaitSeconds * 1000,
    now: () => new Date(),
    diagnosisLatency: storage.metrics.diagnosisLatency,
    diagnoses: storage.metrics.diagnoses,
    evidenceFailures: storage.metrics.evidenceFailures,
  }
  const worker = new Worker(
    storage.queue,
    async (lease, completed, eventLog) => {
      const outcome = await processEvent(lease.eventId, deps, { lease, completed }, eventLog)
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
