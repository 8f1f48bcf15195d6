import { boundedGet } from './http-get.js'

export interface MetricsEvidence {
  status: 'ok' | 'unavailable'
  heapUsedBytes: number | null
  heapMaxBytes: number | null
  heapUsedRatio: number | null
  threads: number | null
  gcSeconds: number | null
  error?: string
}

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

export async function collectMetrics(url: string, timeoutMs: number): Promise<MetricsEvidence> {
  const result = await boundedGet(url, { timeoutMs, maxBytes: 4 * 1024 * 1024 })
  const empty = { heapUsedBytes: null, heapMaxBytes: null, heapUsedRatio: null, threads: null, gcSeconds: null }
  if (!result.ok) return { status: 'unavailable', ...empty, error: `${result.failure}: ${result.detail}` }
  if (result.status < 200 || result.status > 299)
    return { status: 'unavailable', ...empty, error: `HTTP ${result.status}` }
  const parsed = parseJvmMetrics(result.body)
  const found = Object.values(parsed).some((value) => value !== null)
  return found
    ? { status: 'ok', ...parsed }
    : { status: 'unavailable', ...empty, error: 'no JVM metrics in the exposition' }
}
