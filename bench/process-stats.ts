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

/** One sample's value on the service's /metrics (the first series of that name), NaN when absent. */
export async function scrapeMetric(url: string, name: string): Promise<number> {
  const { request } = await import('node:https')
  const text = await new Promise<string>((resolve, reject) => {
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
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
}

/**
 * The resident set once the service has retired its analysis threads, idle
 * (DIAG_ANALYSIS_IDLE_SECONDS, docs/operations.md "Memory"): the positive signal is
 * `diagnostic_analysis_threads` at 0, which the service sets once the threads have exited.
 * Null when retirement is off or did not come within the period and a minute more.
 */
export async function residentAfterRetirement(
  url: string,
  pid: number | undefined,
): Promise<{ rss: number; peak: number; waitedSeconds: number } | null> {
  const idleSeconds = Number(process.env.DIAG_ANALYSIS_IDLE_SECONDS ?? 60)
  if (idleSeconds === 0) return null
  const started = performance.now()
  const deadline = started + (idleSeconds + 60) * 1000
  while ((await scrapeMetric(url, 'diagnostic_analysis_threads')) !== 0) {
    if (performance.now() > deadline) return null
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return { ...residentMiB(pid), waitedSeconds: (performance.now() - started) / 1000 }
}
