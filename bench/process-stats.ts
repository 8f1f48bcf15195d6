// What a benchmark reads of a child process from Linux's /proc.
import { readFileSync } from 'node:fs'

/** CPU seconds (user + system) the process has used, its threads included: steadier than req/s on a shared machine. */
export function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ = 100)
}

/** Issue 31's bound on the service's resident set: 150 MB (decimal), in MiB as /proc counts. */
export const rssTargetMiB = 150e6 / 2 ** 20

/** The kernel's figures of a process, in bytes: VmRSS, RssAnon, RssFile, VmHWM. */
export function kernelMemory(pid: number | undefined): Record<'VmRSS' | 'RssAnon' | 'RssFile' | 'VmHWM', number> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024
  return { VmRSS: kib('VmRSS'), RssAnon: kib('RssAnon'), RssFile: kib('RssFile'), VmHWM: kib('VmHWM') }
}

/** The resident set and its peak, in MiB. */
export function residentMiB(pid: number | undefined): { rss: number; peak: number } {
  const { VmRSS, VmHWM } = kernelMemory(pid)
  return { rss: VmRSS / 2 ** 20, peak: VmHWM / 2 ** 20 }
}

/** The resident set beside its target, as the benchmarks print it. */
export const rssBesideTarget = ({ rss, peak }: { rss: number; peak: number }) =>
  `${rss.toFixed(0)} MiB (peak ${peak.toFixed(0)} MiB; target <= 150 MB = ${rssTargetMiB.toFixed(0)} MiB: ${rss <= rssTargetMiB ? 'met' : 'not met'})`

/** The service's /metrics, as text. */
export async function scrape(url: string): Promise<string> {
  const { request } = await import('node:https')
  return new Promise<string>((resolve, reject) => {
    request(`${url}/metrics`, { rejectUnauthorized: false }, (res) => {
      let body = ''
      res.on('data', (chunk) => {
        body += chunk
      })
      res.on('end', () => resolve(body))
    })
      .on('error', reject)
      .end()
  })
}

/** One series' value in a scrape (`name` or `name{label="value"}`), NaN when absent (an older service). */
export const sample = (text: string, series: string) =>
  Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)

/** One sample's value on the service's /metrics (the first series of that name), NaN when absent. */
export async function scrapeMetric(url: string, name: string): Promise<number> {
  return sample(await scrape(url), name)
}

/**
 * The kernel's split of the resident set, and the main isolate's heap by space (committed,
 * and used) and external memory as prom-client reports them: what a retirement gave back, and what not.
 */
export async function memorySplitLine(url: string, pid: number | undefined): Promise<string> {
  const text = await scrape(url)
  const { RssAnon, RssFile } = kernelMemory(pid)
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
  const series = (name: string) => mib(sample(text, name))
  const space = (name: string) =>
    `${name} ${series(`nodejs_heap_space_size_total_bytes{space="${name}"}`)} (used ${series(`nodejs_heap_space_size_used_bytes{space="${name}"}`)})`
  const spaces = ['old', 'new', 'code', 'large_object'].map(space).join(', ')
  return `anonymous ${mib(RssAnon)} MiB, files ${mib(RssFile)}; main isolate: heap ${series('nodejs_heap_size_total_bytes')} (${spaces}), external ${series('nodejs_external_memory_bytes')}`
}

/** A resident set read at a signal of the service, and how long after the call the signal came. */
export type ResidentAtSignal = { rss: number; peak: number; waitedSeconds: number }

/**
 * Waits (polling /metrics once a second) until `reached` holds, for at most `seconds`; then the
 * resident set, or null. Each scrape allocates on the service's main thread: polled four times
 * a second, the allocation rate alone kept V8 from shrinking its young generation at the quiet
 * collection, which no Prometheus scraping every 15 s or more would do.
 */
async function residentWhen(
  url: string,
  pid: number | undefined,
  reached: (metrics: string) => boolean,
  seconds: number,
): Promise<ResidentAtSignal | null> {
  const started = performance.now()
  const deadline = started + seconds * 1000
  while (!reached(await scrape(url))) {
    if (performance.now() > deadline) return null
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  return { ...residentMiB(pid), waitedSeconds: (performance.now() - started) / 1000 }
}

const quietCollections = (metrics: string) => sample(metrics, 'diagnostic_memory_collections_total{step="quiet"}')

/** The service's count of quiet collections now (NaN from a service without them): what residentWhenQuiet waits past. */
export const quietCollectionsNow = async (url: string) => quietCollections(await scrape(url))

/**
 * The resident set once the service, quiet after the load, has collected every isolate
 * (DIAG_ANALYSIS_QUIET_SECONDS, docs/operations.md "Memory"): the positive signal is
 * `diagnostic_memory_collections_total{step="quiet"}` past `before` (read while the load ran),
 * counted once every thread has answered (with DIAG_ANALYSIS_THREADS=0 the main isolate alone
 * is collected and counted). Null when that step is off or did not come within the period and
 * a minute more.
 */
export async function residentWhenQuiet(
  url: string,
  pid: number | undefined,
  before: number,
): Promise<ResidentAtSignal | null> {
  const quietSeconds = Number(process.env.DIAG_ANALYSIS_QUIET_SECONDS ?? 5)
  if (quietSeconds === 0 || Number.isNaN(before)) return null
  return residentWhen(url, pid, (metrics) => quietCollections(metrics) > before, quietSeconds + 60)
}

/**
 * The resident set once the service has retired its analysis threads, idle
 * (DIAG_ANALYSIS_IDLE_SECONDS, docs/operations.md "Memory"): the positive signal is
 * `diagnostic_analysis_threads` at 0, which the service sets once the threads have exited.
 * Null when retirement is off (or there are no threads) or did not come within the period and a minute more.
 */
export async function residentAfterRetirement(url: string, pid: number | undefined): Promise<ResidentAtSignal | null> {
  const idleSeconds = Number(process.env.DIAG_ANALYSIS_IDLE_SECONDS ?? 60)
  if (idleSeconds === 0 || process.env.DIAG_ANALYSIS_THREADS === '0') return null
  return residentWhen(url, pid, (metrics) => sample(metrics, 'diagnostic_analysis_threads') === 0, idleSeconds + 60)
}
