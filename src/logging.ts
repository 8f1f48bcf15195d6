import { pino } from 'pino'

export type Logger = pino.Logger

/**
 * The one structured log of the process (pino, JSON lines on stdout): start-up lines,
 * requests (through Fastify), the background, and the reason a start failed. Never a
 * token, a whole payload or an unredacted log line (CONTRIBUTING.md).
 */
export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'diagnostic-service', pid: process.pid },
    redact: ['req.headers.authorization'],
  }
  return destination ? pino(options, destination) : pino(options)
}

/**
 * The lines of the process's life (the generated token and CA, ready, shutting down) at
 * info even when the log is set to warn or error: supervisors, scripts and people wait
 * for "ready on". Only `silent` silences them.
 */
export function lifecycleLog(logger: Logger): Logger {
  if (logger.level === 'silent' || logger.isLevelEnabled('info')) return logger
  return logger.child({}, { level: 'info' })
}
