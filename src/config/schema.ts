// The configuration schema (decision D2). Keys are the environment variable names, so the
// optional JSON file named by DIAG_CONFIG uses the same names and every error message can
// name the variable to fix. `description` is the expectation printed on a bad value.

const string = (description: string, extra: object = {}) => ({ type: 'string', description, ...extra })
const integer = (min: number, max: number, extra: object = {}) => ({
  type: 'integer',
  minimum: min,
  maximum: max,
  description: `an integer from ${min} to ${max}`,
  ...extra,
})

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    DIAG_CONFIG: string('a path to a JSON configuration file'),
    DIAG_HOST: string('a listen address such as 0.0.0.0 or 127.0.0.1', { minLength: 1, default: '0.0.0.0' }),
    DIAG_PORT: integer(0, 65535, { default: 8443 }),
    DIAG_DATA_DIR: string('a directory path', { minLength: 1, default: './data' }),
    DIAG_TLS_CERT: string('a path to a PEM certificate chain', { minLength: 1 }),
    DIAG_TLS_KEY: string('a path to a PEM private key', { minLength: 1 }),
    DIAG_TLS_CLIENT_CA: string('a path to a PEM CA bundle for client certificates', { minLength: 1 }),
    // More names for the generated certificate (config/tls-names.ts checks each one).
    DIAG_TLS_SANS: string('a comma-separated list of DNS names and IP addresses'),
    DIAG_API_TOKENS_FILE: string('a path to a JSON token list', { minLength: 1 }),
    DIAG_API_TOKEN: string('a token of 16 to 512 visible ASCII characters', {
      pattern: '^[\\x21-\\x7e]{16,512}$',
    }),
    DIAG_SMTP_URL: string('an smtp:// or smtps:// URL', { pattern: '^smtps?://[^\\s]+$' }),
    DIAG_SMTP_STARTTLS: {
      enum: ['required', 'opportunistic'],
      description: 'required or opportunistic',
    },
    DIAG_SMTP_CA: string('a path to a PEM CA bundle for the relay', { minLength: 1 }),
    DIAG_SMTP_USER: string('a user name for SMTP AUTH', { minLength: 1 }),
    // Never constrained further: an error line would have to show it.
    DIAG_SMTP_PASSWORD: string('a password'),
    DIAG_SMTP_PASSWORD_FILE: string('a path to a file holding the SMTP password', { minLength: 1 }),
    DIAG_DATABASE_URL: string('a postgres:// or postgresql:// URL', { pattern: '^postgres(ql)?://[^\\s]+$' }),
    DIAG_DATABASE_POOL_SIZE: integer(1, 200, { default: 10 }),
    DIAG_DATABASE_TIMEOUT_MS: integer(100, 60_000, { default: 5000 }),
    DIAG_MAIL_CLAIM_SECONDS: integer(5, 3600, { default: 120 }),
    DIAG_MAIL_FROM: string('one e-mail address', {
      pattern: '^[^\\s@,<>]+@[^\\s@,<>]+$',
      default: 'diagnostic-service@localhost',
    }),
    DIAG_MAIL_TO: string('a comma-separated list of e-mail addresses', {
      pattern: '^\\s*[^\\s@,<>]+@[^\\s@,<>]+\\s*(,\\s*[^\\s@,<>]+@[^\\s@,<>]+\\s*)*$',
      default: 'sre-oncall@localhost',
    }),
    DIAG_INVENTORY: string('a path to the inventory JSON file', { minLength: 1 }),
    DIAG_TEMPLATES_DIR: string('a directory of Handlebars templates', { minLength: 1 }),
    DIAG_RETENTION_DAYS: integer(1, 3650, { default: 30 }),
    // An open occurrence not heard for this long (no repeat, no resolution) is closed as expired.
    DIAG_INCIDENT_EXPIRY_HOURS: integer(1, 87_600, { default: 24 }),
    DIAG_QUEUE_CAPACITY: integer(1, 1_000_000, { default: 50 }),
    DIAG_MAX_CUSTOM_RULES: integer(10, 100_000, { default: 1000 }),
    // A full queue from which nothing finished for this long turns readiness DOWN.
    DIAG_QUEUE_STALL_SECONDS: integer(1, 3600, { default: 30 }),
    // How long a recovery (or re-fire) report waits for the diagnosis of its incident.
    DIAG_FOLLOW_WAIT_SECONDS: integer(0, 86_400, { default: 300 }),
    DIAG_CLOCK_SKEW_SECONDS: integer(0, 86_400, { default: 300 }),
    DIAG_REDACT_CARD_NUMBERS: { enum: ['on', 'off'], description: 'on or off', default: 'off' },
    DIAG_REDACT_EMAILS: { enum: ['on', 'off'], description: 'on or off', default: 'off' },
    DIAG_LOG_LEVEL: {
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      description: 'one of fatal, error, warn, info, debug, trace, silent',
      default: 'info',
    },
    DIAG_RATE_LIMIT_PER_MINUTE: integer(0, 1_000_000, {
      description: 'an integer from 0 (off) to 1000000',
      default: 6000,
    }),
    DIAG_ANONYMOUS_RATE_LIMIT_PER_MINUTE: integer(0, 1_000_000, {
      description: 'an integer from 0 (off) to 1000000',
      default: 1200,
    }),
    // Per client address, for connections that have not carried a valid token (0: no bound;
    // behind a proxy or NAT that gives every client one address, raise or turn off).
    DIAG_ANONYMOUS_CONNECTIONS_PER_ADDRESS: integer(0, 100_000, {
      description: 'an integer from 0 (no bound) to 100000',
      default: 32,
    }),
    DIAG_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND: integer(0, 100_000, {
      description: 'an integer from 0 (no bound) to 100000',
      default: 16,
    }),
    // Connections for every client (docs/operations.md, "Connections and file descriptors").
    // Unset: the soft open-files limit less 256 + 2 x DIAG_WORKER_CONCURRENCY descriptors.
    DIAG_MAX_CONNECTIONS: integer(1, 1_000_000, {
      description: 'an integer from 1 to 1000000, below the open-files limit less the reserve',
    }),
    DIAG_MAX_CONNECTIONS_PER_TOKEN: integer(1, 1_000_000, { default: 64 }),
    // Out of DIAG_MAX_CONNECTIONS, kept for tokens with the webhook scope (Alertmanager).
    DIAG_WEBHOOK_RESERVED_CONNECTIONS: integer(0, 1_000_000, { default: 64 }),
    DIAG_SHUTDOWN_TIMEOUT_MS: integer(100, 600_000, { default: 10_000 }),
    DIAG_WORKER: { enum: ['on', 'off'], description: 'on or off', default: 'on' },
    // An event mostly waits (its analysis thread, probe, metrics, commit): a storm about
    // instances that time out would crawl at a few events per DIAG_HTTP_TIMEOUT_MS with
    // few in flight. CPU stays bounded by DIAG_ANALYSIS_THREADS.
    DIAG_WORKER_CONCURRENCY: integer(1, 1024, { default: 128 }),
    DIAG_WORKER_LEASE_MS: integer(1000, 3_600_000, { default: 60_000 }),
    // No static default: one less than the CPUs, 1 to 4 (load.ts).
    DIAG_ANALYSIS_THREADS: integer(0, 64, { description: 'an integer from 0 (analyse on the main thread) to 64' }),
    // The wall-clock bound on reading, redacting and matching one event's logs (threads only).
    DIAG_ANALYSIS_TIMEOUT_MS: integer(50, 600_000, { default: 10_000 }),
    // After this long without an analysis the threads are stopped, their memory given back,
    // and started again by the next event (docs/operations.md, "Memory"); 0: never.
    DIAG_ANALYSIS_IDLE_SECONDS: integer(0, 86_400, { default: 60 }),
    // After this long without an analysis every isolate is collected once, compacting, and
    // the threads keep running (docs/operations.md, "Memory"); 0: never.
    DIAG_ANALYSIS_QUIET_SECONDS: integer(0, 86_400, { default: 5 }),
    DIAG_HTTP_TIMEOUT_MS: integer(100, 60_000, { default: 3000 }),
    DIAG_MAIL_MAX_ATTEMPTS: integer(1, 50, { default: 6 }),
    DIAG_MAIL_RETRY_BASE_MS: integer(10, 600_000, { default: 2000 }),
    // The web console's sessions (docs/operations.md, "The web console"): an absolute bound
    // from sign-in, and a shorter one without use.
    DIAG_CONSOLE_SESSION_HOURS: integer(1, 24, { default: 8 }),
    DIAG_CONSOLE_SESSION_IDLE_MINUTES: integer(5, 1440, { default: 60 }),
  },
} as const

export type ConfigKey = keyof typeof configSchema.properties
export const configKeys = Object.keys(configSchema.properties) as ConfigKey[]
