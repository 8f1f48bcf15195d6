// Where the service's RSS goes (docs/performance.md, "Where one event's time and memory go"):
// the kernel's split of the resident set (/proc/<pid>/status) beside what each thread's V8
// isolate says it holds (written by memory-probe.cts, preloaded with `BENCH_PROFILE=1`).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { kernelMemory } from './process-stats.js'

interface Snapshot {
  thread: string
  tid: number
  usage: NodeJS.MemoryUsage
  mallocedBytes: number
  physicalBytes: number
  spaces: Record<string, { physical: number; used: number }>
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)

/** The threads the probe wrote for, by the kernel's thread id: `main`, `worker 1`, … */
export function probedThreads(probeDir: string): Map<number, string> {
  return new Map(snapshots(probeDir).map((snapshot) => [snapshot.tid, snapshot.thread]))
}

const snapshots = (probeDir: string) =>
  readdirSync(probeDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(probeDir, name), 'utf8')) as Snapshot)
    .sort((a, b) => a.thread.localeCompare(b.thread))

/** The breakdown the benchmark prints: each isolate's heap by space, its external memory, and what is left. */
export function memoryLines(pid: number, probeDir: string): string[] {
  const kernel = kernelMemory(pid)
  const lines = [
    `RSS ${mib(kernel.VmRSS)} MiB (peak ${mib(kernel.VmHWM)}): anonymous ${mib(kernel.RssAnon)}, files (code of node and its libraries) ${mib(kernel.RssFile)}`,
  ]
  let heaps = 0
  let external = 0
  // A retired analysis thread's last file stays: only threads still in the process count.
  for (const snapshot of snapshots(probeDir).filter(({ tid }) => existsSync(`/proc/${pid}/task/${tid}`))) {
    heaps += snapshot.physicalBytes
    external += snapshot.usage.external
    const spaces = Object.entries(snapshot.spaces)
      .filter(([, space]) => space.physical >= 512 * 1024)
      .sort((a, b) => b[1].physical - a[1].physical)
      .map(([name, space]) => `${name.replace(/_space$/, '')} ${mib(space.physical)}`)
      .join(', ')
    lines.push(
      `  ${snapshot.thread.padEnd(10)} V8 heap ${mib(snapshot.physicalBytes)} MiB resident (${mib(snapshot.usage.heapUsed)} used: ${spaces}); external ${mib(snapshot.usage.external)} (array buffers ${mib(snapshot.usage.arrayBuffers)}); V8 malloc ${mib(snapshot.mallocedBytes)}`,
    )
  }
  lines.push(
    `  anonymous memory outside the V8 heaps ${mib(kernel.RssAnon - heaps)} MiB, of which the isolates' external memory ${mib(external)}; the rest is native: malloc arenas (SQLite, OpenSSL, V8's own), thread stacks, WebAssembly memory, freed memory not returned`,
  )
  return lines
}
