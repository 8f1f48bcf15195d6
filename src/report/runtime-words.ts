import type { GcRate, MetricsEvidence } from '../evidence/metrics-collector.js'

// Sizes and rates as a report (and `appserver-diag incidents show`) words them.

const kib = 1024
const mib = 1024 * 1024
const grouped = (n: number) => Math.round(n).toLocaleString('en-US')

/** "950 bytes", "512 KiB", "1,975 MiB": whole units, thousands grouped. */
export function byteSize(bytes: number): string {
  if (bytes < kib) return `${grouped(bytes)} bytes`
  if (bytes < mib) return `${grouped(bytes / kib)} KiB`
  return `${grouped(bytes / mib)} MiB`
}

const percent = (ratio: number) => `${Math.round(ratio * 100)} %`

/** "1,975 MiB of 2,048 MiB (96 %)"; a maximum of 0 has no share. */
export function usedOf(usedBytes: number, maxBytes: number | null): string {
  if (maxBytes === null) return `${byteSize(usedBytes)} (no maximum exposed)`
  const share = maxBytes > 0 ? ` (${percent(usedBytes / maxBytes)})` : ''
  return `${byteSize(usedBytes)} of ${byteSize(maxBytes)}${share}`
}

const seconds = (s: number) => `${s.toLocaleString('en-US', { maximumFractionDigits: 1 })} s`

/** "GC 3.1 s of the 5 s between two reads (62 %)", or why it is unknown. */
export function gcRateWords(rate: GcRate): string {
  const window = `the ${seconds(rate.windowSeconds)} between two reads`
  if (rate.gcSeconds === null || rate.ratio === null) return `GC time over ${window} unknown: ${rate.why ?? 'no count'}`
  return `GC ${seconds(rate.gcSeconds)} of ${window} (${percent(rate.ratio)} of the time)`
}

/**
 * What the metrics endpoint showed, one phrase a fact: the heap used of its maximum, the
 * live threads, the GC time over the window between two reads. A result stored before the
 * rate was measured shows the counter as what it is, a total since the JVM started.
 */
export function metricsFacts(metrics: MetricsEvidence): string[] {
  const facts: string[] = []
  if (metrics.heapUsedBytes !== null) facts.push(`heap used ${usedOf(metrics.heapUsedBytes, metrics.heapMaxBytes)}`)
  else if (metrics.heapUsedRatio !== null) facts.push(`heap used ${percent(metrics.heapUsedRatio)} of its maximum`)
  if (metrics.threads !== null) facts.push(`${grouped(metrics.threads)} live threads`)
  if (metrics.gcRate) facts.push(gcRateWords(metrics.gcRate))
  else if (metrics.gcRate === undefined && metrics.gcSeconds !== null)
    facts.push(`GC ${seconds(metrics.gcSeconds)} in total since the JVM started`)
  return facts
}
