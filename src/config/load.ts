import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { isAbsolute, resolve } from 'node:path'
import { createAjv } from '../ajv.js'
import type { RedactionOptions } from '../evidence/redaction-options.js'
import { type ConnectionLimits, defaultConnectionLimits } from '../http/connection-guard.js'
import { packageRoot } from '../paths.js'
import { parseMailSettings, type SmtpSettings, withoutPassword } from './mail-settings.js'
import { type ConfigKey, configKeys, configSchema } from './schema.js'
import { parseTlsSans } from './tls-names.js'

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

export interface Config {
  host: string
  port: number
  dataDir: string
  /** `extraNames`: DIAG_TLS_SANS, for the generated certificate only. */
  tls: { certFile?: string; keyFile?: string; clientCaFile?: string; extraNames: string[] }
  apiTokensFile?: string
  apiToken?: string
  /** The SMTP relay; without one, mail is written to files (D3). */
  smtp?: SmtpSettings
  /** PostgreSQL for replicas (docs/operations.md, "Replicas on PostgreSQL"); SQLite in dataDir without it. */
  database?: { url: string; poolSize: number; timeoutMs: number; mailClaimMs: number }
  mailFrom: string
  mailTo: string[]
  inventoryFile: string
  templatesDir: string
  retentionDays: number
  /** An open occurrence not heard for this long is closed as expired (docs/design.md, "Incidents"). */
  incidentExpiryHours: number
  queueCapacity: number
  queueStallSeconds: number
  followWaitSeconds: number
  /** How far ahead of its receipt an alert's start or end is still believed (docs/design.md, "Incidents"). */
  clockSkewSeconds: number
  /** Optional masking of personal data in logs and alerts, off by default (docs/design.md, "Secret redaction"). */
  redaction: RedactionOptions
  maxCustomRules: number
  logLevel: LogLevel
  rateLimits: { perToken: number; perAddress: number }
  connectionLimits: ConnectionLimits
  shutdownTimeoutMs: number
  workerEnabled: boolean
  workerConcurrency: number
  /** Threads that read, redact and match logs; 0 does it on the main thread. */
  analysisThreads: number
  analysisTimeoutMs: number
  /** Without an analysis for this long the threads are retired (0: never). */
  analysisIdleMs: number
  /** Without an analysis for this long every isolate is collected once (0: never). */
  analysisQuietMs: number
  leaseMs: number
  httpTimeoutMs: number
  mailMaxAttempts: number
  mailRetryBaseMs: number
  /** How long a console session lasts from sign-in, and without use (docs/design.md, "The web console"). */
  console: { sessionMs: number; idleMs: number }
  /** Unknown DIAG_* environment variables: reported as warnings, they are likely typos. */
  unknownEnvKeys: string[]
}

/** Thrown with one line per bad value; the process prints them and exits non-zero. */
export class ConfigError extends Error {
  readonly lines: string[]
  constructor(lines: string[]) {
    super(lines.join('\n'))
    this.name = 'ConfigError'
    this.lines = lines
  }
}

const ajv = createAjv({ coerceTypes: true, useDefaults: true })
const validate = ajv.compile(configSchema)

function readConfigFile(path: string): Record<string, unknown> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new ConfigError([`DIAG_CONFIG: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`])
  }
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object')
    return parsed as Record<string, unknown>
  } catch {
    throw new ConfigError([`DIAG_CONFIG: ${path} must hold one JSON object of DIAG_* keys`])
  }
}

/** A bad value as an error line shows it: never a password. */
function shown(key: string, value: unknown): string {
  if (key === 'DIAG_SMTP_PASSWORD') return 'a value not shown'
  return JSON.stringify(key === 'DIAG_SMTP_URL' && typeof value === 'string' ? withoutPassword(value) : value)
}

function describe(key: string): string {
  const property = (configSchema.properties as Record<string, { description?: string }>)[key]
  return property?.description ?? 'a valid value'
}

/**
 * Parses the configuration once (D2): the JSON file named by DIAG_CONFIG first, then the
 * environment on top (env wins). Empty environment values count as unset, as container
 * runtimes often pass them. Relative paths resolve against `cwd`; the embedded defaults
 * for inventory and templates resolve against the package, so `npm start` works anywhere.
 */
export function loadConfig(env: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const raw: Record<string, unknown> = {}
  const configPath = env.DIAG_CONFIG
  if (configPath) Object.assign(raw, readConfigFile(resolve(cwd, configPath)))

  const unknownEnvKeys: string[] = []
  for (const [key, value] of Object.entries(env)) {
    // DIAG_CLI_* configure the `appserver-diag` command line, not the service.
    if (!key.startsWith('DIAG_') || key.startsWith('DIAG_CLI_') || value === undefined || value === '') continue
    if ((configKeys as string[]).includes(key)) raw[key] = value
    else unknownEnvKeys.push(key)
  }

  const given = { ...raw }
  if (!validate(raw)) {
    const lines = (validate.errors ?? []).map((error) => {
      if (error.keyword === 'additionalProperties') {
        return `${String(error.params.additionalProperty)}: unknown configuration key in DIAG_CONFIG`
      }
      const key = error.instancePath.replace(/^\//, '')
      return `${key} must be ${describe(key)} (got ${shown(key, given[key])})`
    })
    throw new ConfigError([...new Set(lines)])
  }

  const value = raw as Partial<Record<ConfigKey, string | number>>
  const str = (key: ConfigKey) => (value[key] === undefined ? undefined : String(value[key]))
  const path = (key: ConfigKey) => {
    const p = str(key)
    return p === undefined ? undefined : isAbsolute(p) ? p : resolve(cwd, p)
  }

  const certFile = path('DIAG_TLS_CERT')
  const keyFile = path('DIAG_TLS_KEY')
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError(['DIAG_TLS_CERT and DIAG_TLS_KEY must be set together (or neither, to generate them)'])
  }
  const clientCaFile = path('DIAG_TLS_CLIENT_CA')
  const sans = parseTlsSans(str('DIAG_TLS_SANS'), certFile !== undefined)
  const mail = parseMailSettings({
    url: str('DIAG_SMTP_URL'),
    startTls: str('DIAG_SMTP_STARTTLS'),
    caFile: path('DIAG_SMTP_CA'),
    user: str('DIAG_SMTP_USER'),
    password: str('DIAG_SMTP_PASSWORD'),
    passwordFile: path('DIAG_SMTP_PASSWORD_FILE'),
  })
  if (sans.errors.length + mail.errors.length > 0) throw new ConfigError([...sans.errors, ...mail.errors])

  const config: Config = {
    host: String(value.DIAG_HOST),
    port: Number(value.DIAG_PORT),
    dataDir: path('DIAG_DATA_DIR') as string,
    tls: {
      ...(certFile ? { certFile } : {}),
      ...(keyFile ? { keyFile } : {}),
      ...(clientCaFile ? { clientCaFile } : {}),
      extraNames: sans.names,
    },
    mailFrom: String(value.DIAG_MAIL_FROM),
    mailTo: String(value.DIAG_MAIL_TO)
      .split(',')
      .map((address) => address.trim()),
    inventoryFile: path('DIAG_INVENTORY') ?? resolve(packageRoot, 'examples', 'inventory.json'),
    templatesDir: path('DIAG_TEMPLATES_DIR') ?? resolve(packageRoot, 'templates'),
    retentionDays: Number(value.DIAG_RETENTION_DAYS),
    incidentExpiryHours: Number(value.DIAG_INCIDENT_EXPIRY_HOURS),
    queueCapacity: Number(value.DIAG_QUEUE_CAPACITY),
    queueStallSeconds: Number(value.DIAG_QUEUE_STALL_SECONDS),
    followWaitSeconds: Number(value.DIAG_FOLLOW_WAIT_SECONDS),
    clockSkewSeconds: Number(value.DIAG_CLOCK_SKEW_SECONDS),
    redaction: {
      maskCardNumbers: value.DIAG_REDACT_CARD_NUMBERS === 'on',
      maskEmails: value.DIAG_REDACT_EMAILS === 'on',
    },
    maxCustomRules: Number(value.DIAG_MAX_CUSTOM_RULES),
    logLevel: value.DIAG_LOG_LEVEL as LogLevel,
    rateLimits: {
      perToken: Number(value.DIAG_RATE_LIMIT_PER_MINUTE),
      perAddress: Number(value.DIAG_ANONYMOUS_RATE_LIMIT_PER_MINUTE),
    },
    connectionLimits: {
      ...defaultConnectionLimits,
      anonymousConnectionsPerAddress: Number(value.DIAG_ANONYMOUS_CONNECTIONS_PER_ADDRESS),
      newConnectionsPerAddressPerSecond: Number(value.DIAG_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND),
      // 0 until the service decides it from the open-files limit (http/connection-budget.ts).
      maxConnections: Number(value.DIAG_MAX_CONNECTIONS ?? 0),
      connectionsPerToken: Number(value.DIAG_MAX_CONNECTIONS_PER_TOKEN),
      webhookReservedConnections: Number(value.DIAG_WEBHOOK_RESERVED_CONNECTIONS),
    },
    shutdownTimeoutMs: Number(value.DIAG_SHUTDOWN_TIMEOUT_MS),
    workerEnabled: value.DIAG_WORKER === 'on',
    workerConcurrency: Number(value.DIAG_WORKER_CONCURRENCY),
    analysisThreads: Number(value.DIAG_ANALYSIS_THREADS ?? Math.min(4, Math.max(1, availableParallelism() - 1))),
    leaseMs: Number(value.DIAG_WORKER_LEASE_MS),
    analysisTimeoutMs: Number(value.DIAG_ANALYSIS_TIMEOUT_MS),
    analysisIdleMs: Number(value.DIAG_ANALYSIS_IDLE_SECONDS) * 1000,
    analysisQuietMs: Number(value.DIAG_ANALYSIS_QUIET_SECONDS) * 1000,
    httpTimeoutMs: Number(value.DIAG_HTTP_TIMEOUT_MS),
    mailMaxAttempts: Number(value.DIAG_MAIL_MAX_ATTEMPTS),
    mailRetryBaseMs: Number(value.DIAG_MAIL_RETRY_BASE_MS),
    console: {
      sessionMs: Number(value.DIAG_CONSOLE_SESSION_HOURS) * 3_600_000,
      idleMs: Number(value.DIAG_CONSOLE_SESSION_IDLE_MINUTES) * 60_000,
    },
    unknownEnvKeys,
  }
  const tokensFile = path('DIAG_API_TOKENS_FILE')
  if (tokensFile) config.apiTokensFile = tokensFile
  const token = str('DIAG_API_TOKEN')
  if (token) config.apiToken = token
  if (mail.smtp) config.smtp = mail.smtp
  const databaseUrl = str('DIAG_DATABASE_URL')
  if (databaseUrl) {
    config.database = {
      url: databaseUrl,
      poolSize: Number(value.DIAG_DATABASE_POOL_SIZE),
      timeoutMs: Number(value.DIAG_DATABASE_TIMEOUT_MS),
      mailClaimMs: Number(value.DIAG_MAIL_CLAIM_SECONDS) * 1000,
    }
  }
  return Object.freeze(config)
}
