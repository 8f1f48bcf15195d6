#!/usr/bin/env node
// Process entry: configuration, start, signals. Everything else lives in service.ts.
import { ConfigError, loadConfig } from './config/load.js'
import { type Service, startService } from './service.js'

const exitConfig = 78 // EX_CONFIG: systemd units can refuse to restart on it

function announce(line: string): void {
  process.stdout.write(`diagnostic-service: ${line}\n`)
}

async function main(): Promise<void> {
  // Everything the service writes (database, WAL, tokens, keys, reports) is for its own
  // user: files 0600 and folders 0700 whatever the umask of the shell or unit that started it.
  process.umask(0o077)
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig(process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    for (const line of error.lines) process.stderr.write(`diagnostic-service: configuration error: ${line}\n`)
    process.exit(exitConfig)
  }

  let service: Service
  try {
    service = await startService(config, announce)
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const line of error.lines) process.stderr.write(`diagnostic-service: configuration error: ${line}\n`)
      process.exit(exitConfig)
    }
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`diagnostic-service: failed to start: ${message}\n`)
    process.exit(1)
  }
  announce(`${service.readiness.state === 'ready' ? 'ready' : service.readiness.state} on ${service.url}`)

  // D28: readiness DOWN at once, finish in-flight requests, close SQLite, exit 0, all
  // within DIAG_SHUTDOWN_TIMEOUT_MS; a second signal or the timer forces exit 1.
  let signalled = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1)
    signalled = true
    service.app.log.info({ signal }, 'shutting down')
    setTimeout(() => {
      service.app.log.error('shutdown timed out; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs).unref()
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        service.app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', shutdown)
  process.on('SIGINT', shutdown)
}

await main()
