import { Counter, Gauge, Histogram, type Registry } from 'prom-client'

// The families an operator runs the service by (docs/operations.md, "Metrics and what to alert on"):
// what the diagnoses concluded, which evidence sources fail, how long requests take, the
// mails still to deliver, and when the credentials run out. Every label takes values
// from a bounded set: branches (the built-in ones and at most DIAG_MAX_CUSTOM_RULES
// custom ones), route patterns (never a raw URL), token names (never a token).

/** The outbox as a scrape sees it (store/sqlite/outbox-stats.ts, store/postgres/outbox-stats.ts). */
export interface OutboxStats {
  /** Mails neither delivered nor failed for good, the retrying ones included. */
  pending: number
  /** Pending mails at least one attempt of which failed. */
  retrying: number
}

/** When the credentials the service was started with stop working (epoch ms). */
export interface CredentialExpiries {
  /** The server certificate's notAfter, or null before it is known. */
  certificate: number | null
  /** Tokens that carry an `expiresAt`, by name; a token without one never expires. */
  tokens: ReadonlyArray<{ name: string; expiresAt: number }>
}

export interface OperationsMetrics {
  diagnoses: Counter<'branch' | 'classification' | 'confidence'>
  evidenceFailures: Counter<'source' | 'reason'>
  httpDuration: Histogram<'route' | 'method' | 'status_class'>
  queueCapacity: Gauge
  /** Where the expiry gauges read from; set once the credentials are loaded (startup/expiry-gauges.ts). */
  credentials: { expiries: () => CredentialExpiries }
}

// Seconds, the base unit `promtool check metrics` asks for; a dashboard divides by 86400 for days.
const secondsUntil = (at: number) => (at - Date.now()) / 1000

/** TD-07 (no evidence) and TD-08 (no rule matched) are series from the start, so a rate over them exists at 0. */
const fallbackBranches = ['TD-07', 'TD-08']

export function operationsMetrics(
  registers: Registry[],
  outbox: () => OutboxStats | Promise<OutboxStats>,
): OperationsMetrics {
  const diagnoses = new Counter({
    name: 'diagnostic_diagnoses_total',
    help: 'Diagnosis reports committed, by the primary finding: its branch, the classification the evidence earned and its confidence (none for undetermined); TD-07 is evidence unavailable, TD-08 evidence no rule matched',
    labelNames: ['branch', 'classification', 'confidence'],
    registers,
  })
  for (const branch of fallbackBranches)
    diagnoses.inc({ branch, classification: 'undetermined', confidence: 'none' }, 0)

  // Read once per scrape for both outbox gauges.
  let mails: OutboxStats | undefined
  new Gauge({
    name: 'diagnostic_mails_pending',
    help: 'Reports in the outbox not yet delivered nor failed for good (retrying ones included)',
    registers,
    async collect() {
      mails = await outbox()
      this.set(mails.pending)
    },
  })
  new Gauge({
    name: 'diagnostic_mails_retrying',
    help: 'Pending reports at least one delivery attempt of which failed; they are retried with back-off',
    registers,
    async collect() {
      const seen = mails ?? (await outbox())
      mails = undefined
      this.set(seen.retrying)
    },
  })

  const credentials = { expiries: (): CredentialExpiries => ({ certificate: null, tokens: [] }) }
  new Gauge({
    name: 'diagnostic_tls_certificate_expires_in_seconds',
    help: "Seconds until the server's TLS certificate expires (negative once it has)",
    registers,
    collect() {
      // NaN, not 0, while unknown: no alert on "expires within N days" fires on it.
      const { certificate } = credentials.expiries()
      this.set(certificate === null ? Number.NaN : secondsUntil(certificate))
    },
  })
  new Gauge({
    name: 'diagnostic_api_token_expires_in_seconds',
    help: 'Seconds until an API token of DIAG_API_TOKENS_FILE expires (its expiresAt), by token name; tokens without one have no series',
    labelNames: ['token'],
    registers,
    collect() {
      this.reset()
      for (const { name, expiresAt } of credentials.expiries().tokens)
        this.set({ token: name }, secondsUntil(expiresAt))
    },
  })

  return {
    diagnoses,
    evidenceFailures: new Counter({
      name: 'diagnostic_evidence_source_failures_total',
      help: 'Evidence sources that gave nothing for an event, by source (inventory, log, spool, metrics, probe) and reason (missing, unreadable, outside_roots, timeout, refused, ...)',
      labelNames: ['source', 'reason'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'diagnostic_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route pattern, method and status class',
      labelNames: ['route', 'method', 'status_class'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    queueCapacity: new Gauge({
      name: 'diagnostic_queue_capacity',
      help: 'The events the work queue admits (DIAG_QUEUE_CAPACITY); past it the webhook answers 503 queue_full',
      registers,
    }),
    credentials,
  }
}
