import { chmodSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import {
  allScopes,
  ensureGeneratedToken,
  readTokensFile,
  sha256,
  type TokenEntry,
  TokenVerifier,
} from './auth/tokens.js'
import type { Config } from './config/load.js'
import { loadInventory } from './evidence/inventory.js'
import { fileTransport, smtpTransport } from './mail/mail-transport.js'
import { OutboxSender } from './mail/outbox-sender.js'
import { createMetrics, type Metrics } from './metrics.js'
import { packageRoot } from './paths.js'
import { batchedClaims } from './queue/batched-claims.js'
import { WorkQueue } from './queue/work-queue.js'
import { Readiness } from './readiness.js'
import { checkTemplates } from './report/template-check.js'
import { loadTemplates } from './report/templates.js'
import { PatternSafety } from './rules/pattern-safety.js'
import { RulesService } from './rules/rules-service.js'
import { seedCustomRules } from './rules/seed.js'
import { type Db, openDatabase } from './store/database.js'
import { EventWriter } from './store/event-writer.js'
import { Housekeeping } from './store/housekeeping.js'
import { IncidentsRepository } from './store/incidents-repository.js'
import { sqliteOutboxStore } from './store/outbox-store.js'
import { pruneOlderThan } from './store/retention.js'
import { RulesRepository } from './store/rules-repository.js'
import { StorageHealth } from './store/storage-health.js'
import { sqliteWorkerStore } from './store/worker-store.js'
import { WriteBatcher } from './store/write-batcher.js'
import { ensureDevCertificates, readTlsMaterial } from './tls/dev-certificates.js'
import { type Analysis, createAnalysis } from './worker/analysis/analysis-pool.js'
import { processEvent } from './worker/process-event.js'
import { QueueStallMonitor } from './worker/queue-stall.js'
import { Worker } from './worker/worker.js'

export const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string })
  .version

export interface Service {
  app: FastifyInstance
  db: Db
  metrics: Metrics
  readiness: Readiness
  rules: RulesService
  /** Log analysis and the live rules engines (one per analysis thread, or one here). */
  analysis: Analysis
  housekeeping: Pick<Housekeeping, 'runOnce'>
  /** The https URL the service listens on. */
  url: string
  /** CA file clients should trust when the certificate was generated (D3), else undefined. */
  generatedCaFile: string | undefined
  /** D28: readiness DOWN at once, drain requests, flush writes, close SQLite. */
  stop(): Promise<void>
}

/** One line each for things an operator must see once (generated token, CA path). */
export type Announce = (line: string) => void

function loadTokens(config: Config, announce: Announce): TokenVerifier {
  const entries: TokenEntry[] = config.apiTokensFile ? readTokensFile(config.apiTokensFile) : []
  if (config.apiToken) entries.push({ name: 'default', hash: sha256(config.apiToken), scopes: allScopes })
  if (entries.length === 0) {
    const file = join(config.dataDir, 'api-token')
    const { token, created } = ensureGeneratedToken(file)
    if (created) announce(`generated API token (stored in ${file}, mode 0600, shown only now): ${token}`)
    entries.push({ name: 'default', hash: sha256(token), scopes: allScopes })
  }
  return new TokenVerifier(entries)
}

async function loadTls(config: Config, announce: Announce) {
  if (config.tls.certFile && config.tls.keyFile) {
    return {
      generatedCaFile: undefined,
      files: { ...config.tls, certFile: config.tls.certFile, keyFile: config.tls.keyFile },
    }
  }
  const dev = await ensureDevCertificates(join(config.dataDir, 'tls'))
  if (dev.created) announce(`generated a local CA and server certificate; clients trust: ${dev.caFile}`)
  const files = {
    certFile: dev.certFile,
    keyFile: dev.keyFile,
    ...(config.tls.clientCaFile ? { clientCaFile: config.tls.clientCaFile } : {}),
  }
  return { generatedCaFile: dev.caFile, files }
}

/** Readiness and a gauge that follow whether the database takes writes (docs/operations.md). */
function storageHealth(
  db: Db,
  readiness: Readiness,
  metrics: Metrics,
  log: () => Pick<FastifyBaseLogger, 'info' | 'error'> | undefined,
): StorageHealth {
  // A one-row write in its own IMMEDIATE transaction: it needs the write lock and a page
  // of the journal, as every real write does.
  const touch = db.prepare("UPDATE queue_depth SET items = items WHERE status = 'done'")
  const probe = db.transaction(() => touch.run())
  const lazyLog = {
    info: (obj: object, msg: string) => log()?.info(obj, msg),
    error: (obj: object, msg: string) => log()?.error(obj, msg),
  }
  return new StorageHealth(() => probe.immediate(), readiness, metrics, lazyLog, { probeMs: 1000 })
}

export async function startService(config: Config, announce: Announce = () => {}): Promise<Service> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
  // Owner only, also when an older version or an operator created it with a wider mode.
  chmodSync(config.dataDir, 0o700)
  const tls = await loadTls(config, announce)
  const tokens = loadTokens(config, announce)
  const dbFile = join(config.dataDir, 'diagnostic.db')
  const db = openDatabase(dbFile)
  const metrics = createMetrics({ version, dbFile })
  const readiness = new Readiness(metrics.ready)
  // The app's logger exists once the app does; no write can fail before that.
  let appLog: FastifyBaseLogger | undefined
  const storage = storageHealth(db, readiness, metrics, () => appLog?.child({ component: 'storage' }))
  let worker: Worker | undefined
  const writer = new EventWriter(db, {
    queueCapacity: config.queueCapacity,
    commits: metrics.ingestCommits,
    onQueued: () => worker?.kick(),
    health: storage,
  })
  const rules = new RulesService(
    new RulesRepository(db, storage),
    new PatternSafety(),
    undefined,
    undefined,
    config.maxCustomRules,
  )

  const material = readTlsMaterial(tls.files)
  const app = await buildApp(
    {
      readiness,
      metrics,
      tokens,
      writer,
      rules,
      incidents: new IncidentsRepository(db),
      version,
      rateLimits: config.rateLimits,
    },
    {
      // D4: HTTPS only, TLS 1.3 only; mutual TLS when a client CA is configured.
      https: {
        ...material,
        minVersion: 'TLSv1.3',
        maxVersion: 'TLSv1.3',
        ...(material.ca ? { requestCert: true, rejectUnauthorized: true } : {}),
      },
      logger: { level: config.logLevel, redact: ['req.headers.authorization'] },
      connectionLimits: config.connectionLimits,
    },
  )
  appLog = app.log
  if (config.unknownEnvKeys.length > 0) {
    app.log.warn({ keys: config.unknownEnvKeys }, 'ignoring unknown DIAG_* environment variables')
  }

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
    app.log.child({ component: 'mail' }),
    Date.now,
    storage,
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
    (cutoff) => pruneOlderThan(db, cutoff),
    metrics,
    { retentionDays: config.retentionDays, intervalMs: 3_600_000 },
    app.log.child({ component: 'housekeeping' }),
    Date.now,
    storage,
  )

  const batcher = new WriteBatcher(db, { name: 'worker', health: storage })
  const analysis = createAnalysis(
    config.analysisThreads,
    () => rules.catalogue.custom,
    app.log.child({ component: 'analysis' }),
    { timeoutMs: config.analysisTimeoutMs, onTimeout: () => metrics.analysisTimeouts.inc() },
  )
  rules.onRegistered((rule) => analysis.addCustomRule(rule))

  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      readiness.set('shutting_down')
      storage.stop()
      housekeeping.stop()
      stallMonitor.stop()
      // Requests in flight get half the shutdown bound to finish; then every connection
      // still open (a client that pipelines and never reads, say) is cut.
      const cut = setTimeout(() => app.server.closeAllConnections(), Math.floor(config.shutdownTimeoutMs / 2))
      await app.close()
      clearTimeout(cut)
      await worker?.stop(Math.floor(config.shutdownTimeoutMs / 2))
      await analysis.close()
      await sender.stop()
      writer.flush()
      batcher.flush()
      db.close()
    })()
    return stopping
  }

  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    await analysis.close()
    db.close()
    throw error
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`

  // Listening first and then checking lets /health/ready tell "starting" and
  // "startup_failed" apart from "not running" (D26).
  try {
    const check = db.pragma('quick_check', { simple: true })
    if (check !== 'ok') throw new Error(`database quick_check: ${String(check)}`)
    const seeded = await seedCustomRules(rules)
    if (seeded > 0) app.log.info({ rules: seeded }, 'registered the seed rulepack (D29)')
    const inventory = loadInventory(config.inventoryFile)
    const templates = loadTemplates(config.templatesDir)
    checkTemplates(templates)
    await analysis.ready()
    const deps = {
      store: sqliteWorkerStore(db, batcher),
      inventory,
      analysis,
      templates,
      mailTo: config.mailTo,
      version,
      httpTimeoutMs: config.httpTimeoutMs,
      followWaitMs: config.followWaitSeconds * 1000,
      now: () => new Date(),
    }
    worker = new Worker(
      batchedClaims(queue, batcher),
      async (lease, complete) => {
        const outcome = await processEvent(lease.eventId, deps, complete)
        sender.kick()
        return outcome
      },
      metrics,
      {
        concurrency: config.workerConcurrency,
        leaseMs: config.leaseMs,
        sweepMs: Math.max(500, Math.floor(config.leaseMs / 4)),
        pollMs: 1000,
        maxAttempts: 5,
        retryBaseMs: 5000,
        hostFaultDelayMs: 5000,
      },
      app.log.child({ component: 'worker' }),
    )
    sender.start()
    housekeeping.start()
    stallMonitor.start()
    if (config.workerEnabled) worker.start()
    app.log.info(
      {
        mail: transport.description,
        inventory: config.inventoryFile,
        worker: config.workerEnabled,
        analysisThreads: config.analysisThreads,
      },
      'worker ready',
    )
    readiness.set('ready')
  } catch (error) {
    worker = undefined
    readiness.set('startup_failed')
    app.log.error({ err: error }, 'startup check failed; the service stays not ready')
  }
  return { app, db, metrics, readiness, rules, analysis, housekeeping, url, generatedCaFile: tls.generatedCaFile, stop }
}
