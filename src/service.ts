import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import type { TokenVerifier } from './auth/tokens.js'
import type { Config } from './config/load.js'
import { connectionBudget, readOpenFilesLimit } from './http/connection-budget.js'
import { createLogger, type Logger, lifecycleLog } from './logging.js'
import type { Metrics } from './metrics.js'
import { packageRoot } from './paths.js'
import type { Readiness } from './readiness.js'
import { OffThreadCost } from './rules/off-thread-cost.js'
import { PatternSafety } from './rules/pattern-safety.js'
import { inProcessReplay, threadReplay } from './rules/replay/replay-runner.js'
import { ReplayService } from './rules/replay/replay-service.js'
import { RulesService } from './rules/rules-service.js'
import { verifyShippedRules } from './rules/shipped-rules.js'
import { type Background, checkStartup, createBackground, startBackground } from './startup/background.js'
import { credentialExpiries } from './startup/credential-expiries.js'
import { type Announce, loadTls, loadTokens } from './startup/credentials.js'
import { openPostgresStorage } from './startup/postgres-storage.js'
import { QuietCollection } from './startup/quiet-collection.js'
import { fileHash, replicaFacts } from './startup/replica-facts.js'
import { openSqliteStorage } from './startup/sqlite-storage.js'
import { prepareDataDir, type Storage } from './startup/storage.js'
import type { Housekeeping } from './store/housekeeping.js'
import type { IngestStore } from './store/ingest-port.js'
import type { DatabaseOptions, Db } from './store/sqlite/database.js'
import { readTlsMaterial } from './tls/dev-certificates.js'
import type { Analysis } from './worker/analysis/analysis-pool.js'
import type { Worker } from './worker/worker.js'

export const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string })
  .version

export interface Service {
  app: FastifyInstance
  /** The SQLite database; a service on PostgreSQL has none (reading it throws). */
  readonly db: Db
  storage: Storage
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
  /**
   * Why a start-up check failed (readiness `startup_failed`); the process then logs it and
   * exits (server.ts), an embedding test can still look at the service.
   */
  startupError: Error | undefined
  /** D28: readiness DOWN at once, drain requests, flush writes, close the storage. */
  stop(): Promise<void>
}

/**
 * Builds and starts the service: credentials, storage, rules, the HTTPS app, what runs
 * beside it, then listening, and only then the start-up checks, so that /health/ready
 * tells "starting" and "startup_failed" apart from "not running" (D26).
 */
export async function startService(
  config: Config,
  logger = createLogger(config.logLevel),
  /** For a test that holds SQLite's WAL sync to see what waits for it (database.ts). */
  sqliteOptions: Pick<DatabaseOptions, 'wrapSync'> = {},
): Promise<Service> {
  // Lines an operator must see once (the generated token, the CA to trust).
  const lifecycle = lifecycleLog(logger)
  const announce: Announce = (line) => lifecycle.info(line)
  // Connections stay below the open-files limit; a limit too tight stops the start (78).
  const connectionLimits = connectionBudget(config.connectionLimits, {
    openFiles: readOpenFilesLimit(),
    workerConcurrency: config.workerConcurrency,
  })
  prepareDataDir(config.dataDir)
  // Tokens first: a bad token file stops the start before any key is generated.
  const tokens = loadTokens(config, announce)
  const tls = await loadTls(config, announce, (line) => logger.warn(line))
  // Read once, here: a TLS file that cannot be read stops the start (78) before any database is made.
  const material = readTlsMaterial(tls.files)
  // Read at scrape time by diagnostic_tls_certificate_expires_in_seconds and diagnostic_api_token_expires_in_seconds.
  const expiries = credentialExpiries(tokens, material.cert)
  // Shipped rule files are trusted as shipped, so they must be the shipped bytes (D29).
  verifyShippedRules()
  // An upgrade's migrations are said even when the log is set to warn.
  const migrationLog = lifecycle.child({ component: 'storage' })
  const storage = config.database
    ? await openPostgresStorage({ ...config.database, leaseMs: config.leaseMs, version, migrationLog })
    : openSqliteStorage(config.dataDir, version, config.leaseMs, migrationLog, sqliteOptions)
  storage.metrics.credentials.expiries = () => expiries
  storage.metrics.queueCapacity.set(config.queueCapacity)
  // With analysis threads (dist/), a pattern's cost is measured off the event loop too.
  const costs = config.analysisThreads > 0 ? new OffThreadCost() : null
  const rules = new RulesService(
    await storage.rules(),
    costs ? new PatternSafety(undefined, costs.measure) : new PatternSafety(),
    undefined,
    undefined,
    config.maxCustomRules,
  )
  let worker: Worker | undefined
  const writer = storage.ingest({
    queueCapacity: config.queueCapacity,
    clockSkewMs: config.clockSkewSeconds * 1000,
    redaction: config.redaction,
    onQueued: () => worker?.kick(),
  })
  const quiet = new QuietCollection(config.analysisQuietMs)
  const app = await createApp(config, connectionLimits, storage, tokens, writer, rules, material, logger, quiet)
  storage.useLog(app.log)
  const background = createBackground(config, storage, rules, app.log, quiet)
  // Duplicates heard are written once a minute, never one write each (docs/design.md, "Incidents").
  writer.heard.start(60_000, (error) => storage.health.failed('heard_occurrences', error))
  // Rules registered on other replicas reach this one's engines (PostgreSQL).
  const follower = await storage.followRules(rules)
  // What this replica diagnoses with, compared with the other replicas' (docs/operations.md).
  const inventoryHash = fileHash(config.inventoryFile)
  const replica = await storage.registerReplica(() => replicaFacts(version, rules.catalogue, inventoryHash))
  const stop = stopOnce(config, app, storage, writer, background, () => worker, follower, replica)
  await listen(app, config, storage, background)
  let startupError: Error | undefined
  try {
    const checked = await checkStartup(config, storage, rules, background, app.log, () => follower.fresh())
    worker = startBackground(config, storage, background, checked, version, app.log, () => follower.fresh())
    storage.readiness.set('ready')
  } catch (error) {
    startupError = error instanceof Error ? error : new Error(String(error))
    storage.readiness.set('startup_failed')
  }
  const { metrics, readiness } = storage
  const { analysis, housekeeping } = background
  const url = serviceUrl(app, config)
  const generatedCaFile = tls.generatedCaFile
  return {
    app,
    get db(): Db {
      if (!storage.sqlite) throw new Error('this service stores in PostgreSQL, not SQLite')
      return storage.sqlite
    },
    storage,
    metrics,
    readiness,
    rules,
    analysis,
    housekeeping,
    url,
    generatedCaFile,
    startupError,
    stop,
  }
}

async function createApp(
  config: Config,
  connectionLimits: ReturnType<typeof connectionBudget>,
  storage: Storage,
  tokens: TokenVerifier,
  writer: IngestStore,
  rules: RulesService,
  material: ReturnType<typeof readTlsMaterial>,
  logger: Logger,
  quiet: QuietCollection,
): Promise<FastifyInstance> {
  const app = await buildApp(
    {
      readiness: storage.readiness,
      metrics: storage.metrics,
      tokens,
      writer,
      rules,
      incidents: storage.incidents,
      // On a thread of its own, as the analysis is; on the main thread when the analysis is.
      replay: new ReplayService(rules, storage.bundles, config.analysisThreads > 0 ? threadReplay() : inProcessReplay),
      console: storage.console,
      consoleSessions: config.console,
      version,
      rateLimits: config.rateLimits,
      redaction: config.redaction,
      activity: quiet,
    },
    {
      // D4: HTTPS only, TLS 1.3 only; mutual TLS when a client CA is configured.
      https: {
        ...material,
        minVersion: 'TLSv1.3',
        maxVersion: 'TLSv1.3',
        ...(material.ca ? { requestCert: true, rejectUnauthorized: true } : {}),
      },
      logger,
      connectionLimits,
    },
  )
  const { maxConnections, openFiles, reserve, connectionsPerToken, webhookReservedConnections } = connectionLimits
  app.log.info(
    { maxConnections, openFiles, reserve, connectionsPerToken, webhookReservedConnections },
    'client connections bounded',
  )
  if (config.unknownEnvKeys.length > 0) {
    app.log.warn({ keys: config.unknownEnvKeys }, 'ignoring unknown DIAG_* environment variables')
  }
  return app
}

async function listen(app: FastifyInstance, config: Config, storage: Storage, background: Background) {
  try {
    await app.listen({
      host: config.host,
      port: config.port,
      // The server is HTTPS (D4); Fastify, given our own server, would announce http://.
      listenTextResolver: (address) => `Server listening at ${address.replace(/^http:/, 'https:')}`,
    })
  } catch (error) {
    background.quiet.close()
    await background.analysis.close()
    await storage.close()
    throw error
  }
}

function serviceUrl(app: FastifyInstance, config: Config): string {
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`
}

/** D28, once however often it is called. */
function stopOnce(
  config: Config,
  app: FastifyInstance,
  storage: Storage,
  writer: IngestStore,
  background: Background,
  worker: () => Worker | undefined,
  follower: { stop(): Promise<void> },
  replica: { stop(): Promise<void> },
): () => Promise<void> {
  let stopping: Promise<void> | undefined
  return () => {
    stopping ??= (async () => {
      storage.readiness.set('shutting_down')
      storage.health.stop()
      background.housekeeping.stop()
      background.stallMonitor.stop()
      writer.heard.stop()
      // Requests in flight get half the shutdown bound to finish; then every connection
      // still open (a client that pipelines and never reads, say) is cut.
      const cut = setTimeout(() => app.server.closeAllConnections(), Math.floor(config.shutdownTimeoutMs / 2))
      await app.close()
      clearTimeout(cut)
      await worker()?.stop(Math.floor(config.shutdownTimeoutMs / 2))
      background.quiet.close()
      await background.analysis.close()
      await background.sender.stop()
      await follower.stop()
      await replica.stop()
      await writer.flush()
      storage.flush()
      await storage.close()
    })()
    return stopping
  }
}
