import { boundedGet } from './http-get.js'

/**
 * The time the JVM spent collecting garbage between two reads of its GC counter: a rate,
 * where the counter alone is a total since the JVM started.
 */
export interface GcRate {
  /** Seconds between the two reads. */
  windowSeconds: number
  /** GC seconds counted between them; null when they cannot be known (`why`). */
  gcSeconds: number | null
  /** gcSeconds / windowSeconds: the share of wall time spent in GC. */
  ratio: number | null
  why?: string
}

export interface MetricsEvidence {
  status: 'ok' | 'unavailable'
  heapUsedBytes: number | null
  heapMaxBytes: number | null
  heapUsedRatio: number | null
  threads: number | null
  /** The GC counter at the first read: seconds since the JVM started. */
  gcSeconds: number | null
  /** Absent in results stored before it was measured; null when no GC counter is exposed. */
  gcRate?: GcRate | null
  error?: string
}

/**
 * How far apart the GC counter is read twice. A collection still running at the second read
 * counts in neither; long enough to hold several collections of a JVM that is thrashing.
 */
export const gcRateIntervalMs = 5000

const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/

/**
 * JVM facts from a Prometheus text exposition, across the common exporters' names:
 * Micrometer (jvm_memory_used_bytes, jvm_threads_live_threads, jvm_gc_pause_seconds) and
 * the JMX exporter (jvm_memory_bytes_used, jvm_threads_current, jvm_gc_collection_seconds).
 * Heap is summed over pools; a max of -1 (unbounded pool) is left out.
 */
export function parseJvmMetrics(text: string): Omit<MetricsEvidence, 'status' | 'error'> {
  const sums: Record<string, number> = {}
  const seen = new Set<string>()
  for (const line of text.split('\n')) {
    if (line.length > 4096 || line.startsWith('#')) continue
    const match = sample.exec(line)
    if (!match) continue
    const [, name = '', labels = '', raw = ''] = match
    const value = Number(raw)
    if (!Number.isFinite(value)) continue
    const heap = /area="heap"/.test(labels)
    const key =
      (name === 'jvm_memory_used_bytes' || name === 'jvm_memory_bytes_used') && heap
        ? 'heapUsed'
        : (name === 'jvm_memory_max_bytes' || name === 'jvm_memory_bytes_max') && heap
          ? 'heapMax'
          : name === 'jvm_threads_live_threads' || name === 'jvm_threads_current'
            ? 'threads'
            : name === 'jvm_gc_pause_seconds_sum' || name === 'jvm_gc_collection_seconds_sum'
              ? 'gcSeconds'
              : null
    if (key === null || (key === 'heapMax' && value < 0)) continue
    sums[key] = (sums[key] ?? 0) + value
    seen.add(key)
  }
  const pick = (key: string) => (seen.has(key) ? (sums[key] as number) : null)
  const heapUsedBytes = pick('heapUsed')
  const heapMaxBytes = pick('heapMax')
  return {
    heapUsedBytes,
    heapMaxBytes,
    heapUsedRatio:
      heapUsedBytes !== null && heapMaxBytes ? Math.round((heapUsedBytes / heapMaxBytes) * 1000) / 1000 : null,
    threads: pick('threads'),
    gcSeconds: pick('gcSeconds'),
  }
}

type Reading = Omit<MetricsEvidence, 'status' | 'error' | 'gcRate'>

const emptyReading: Reading = {
  heapUsedBytes: null,
  heapMaxBytes: null,
  heapUsedRatio: null,
  threads: null,
  gcSeconds: null,
}

/** One bounded read of the exposition: its JVM facts and when they were answered, or why not. */
async function readOnce(url: string, timeoutMs: number): Promise<{ reading: Reading; at: number } | string> {
  const result = await boundedGet(url, { timeoutMs, maxBytes: 4 * 1024 * 1024 })
  const at = performance.now()
  if (!result.ok) return `${result.failure}: ${result.detail}`
  if (result.status < 200 || result.status > 299) return `HTTP ${result.status}`
  const reading = parseJvmMetrics(result.body)
  return Object.values(reading).some((value) => value !== null) ? { reading, at } : 'no JVM metrics in the exposition'
}

const rounded = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits

/**
 * The instance's JVM metrics (D17), read twice `intervalMs` apart when the first read shows
 * a GC counter, so that GC time is a rate over that window. A failed first read costs at
 * most `timeoutMs`; a failed second one leaves the rate unknown and the first read stands.
 */
export async function collectMetrics(
  url: string,
  timeoutMs: number,
  intervalMs = gcRateIntervalMs,
): Promise<MetricsEvidence> {
  const first = await readOnce(url, timeoutMs)
  if (typeof first === 'string') return { status: 'unavailable', ...emptyReading, gcRate: null, error: first }
  const evidence: MetricsEvidence = { status: 'ok', ...first.reading, gcRate: null }
  const before = first.reading.gcSeconds
  if (before === null) return evidence
  await new Promise((resolve) => setTimeout(resolve, intervalMs))
  const second = await readOnce(url, timeoutMs)
  if (typeof second === 'string') {
    const windowSeconds = rounded((performance.now() - first.at) / 1000, 1)
    return {
      ...evidence,
      gcRate: { windowSeconds, gcSeconds: null, ratio: null, why: `the second read failed (${second})` },
    }
  }
  const windowSeconds = rounded((second.at - first.at) / 1000, 1)
  const after = second.reading.gcSeconds
  const gcSeconds = after === null ? null : after - before
  if (gcSeconds === null || gcSeconds < 0) {
    const why =
      gcSeconds === null ? 'the second read had no GC counter' : 'the GC counter fell between the reads (a restart?)'
    return { ...evidence, gcRate: { windowSeconds, gcSeconds: null, ratio: null, why } }
  }
  // Over 1 when collectors counted in parallel: shown as it is, not capped.
  const ratio = windowSeconds > 0 ? rounded(gcSeconds / windowSeconds, 3) : null
  return { ...evidence, gcRate: { windowSeconds, gcSeconds: rounded(gcSeconds, 3), ratio } }
}
