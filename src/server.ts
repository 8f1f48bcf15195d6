#!/usr/bin/env node
// Process entry: configuration, start, signals, exit codes. Everything else lives in service.ts.
import { ConfigError, loadConfig } from './config/load.js'
import { InventoryError } from './evidence/inventory.js'
import { createLogger, type Logger, lifecycleLog } from './logging.js'
import { TemplateError } from './report/templates.js'
import { BuiltinRulesError } from './rules/builtin-loader.js'
import { type Service, startService } from './service.js'

const exitConfig = 78 // EX_CONFIG: systemd units can refuse to restart on it
const exitFailure = 1

/** Whether a start failed on what the operator configured (exit 78) rather than on the host (exit 1). */
const isConfigurationError = (error: unknown) =>
  error instanceof ConfigError ||
  error instanceof InventoryError ||
  error instanceof TemplateError ||
  error instanceof BuiltinRulesError

/** A start that cannot go on: one fatal line that says why, then a non-zero exit. */
function exitOnStartFailure(log: Logger, error: unknown): never {
  const code = isConfigurationError(error) ? exitConfig : exitFailure
  const problems = error instanceof ConfigError ? error.lines : undefined
  const message = error instanceof Error ? error.message : String(error)
  // A configuration error is its lines; anything else keeps its stack for whoever debugs it.
  const detail = problems ? { problems } : { err: error }
  log.fatal({ ...detail, exitCode: code }, `failed to start: ${problems ? problems.join('; ') : message}`)
  log.flush()
  process.exit(code)
}

async function main(): Promise<void> {
  // Everything the service writes (database, WAL, tokens, keys, reports) is for its own
  // user: files 0600 and folders 0700 whatever the umask of the shell or unit that started it.
  process.umask(0o077)
  // Before the configuration is read, its log level is not known: info until then.
  let log = createLogger()
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig(process.env)
  } catch (error) {
    exitOnStartFailure(log, error)
  }
  log = createLogger(config.logLevel)

  let service: Service
  try {
    service = await startService(config, log)
  } catch (error) {
    exitOnStartFailure(log, error)
  }
  if (service.startupError) {
    const error = service.startupError
    await service.stop().catch(() => {})
    exitOnStartFailure(log, error)
  }
  const lifecycle = lifecycleLog(log)
  lifecycle.info({ url: service.url }, `ready on ${service.url}`)

  // D28: readiness DOWN at once, finish in-flight requests, close SQLite, exit 0, all
  // within DIAG_SHUTDOWN_TIMEOUT_MS; a second signal or the timer forces exit 1.
  let signalled = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1)
    signalled = true
    lifecycle.info({ signal }, 'shutting down')
    setTimeout(() => {
      log.error('shutdown timed out; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs).unref()
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', shutdown)
  process.on('SIGINT', shutdown)
}

await main()
