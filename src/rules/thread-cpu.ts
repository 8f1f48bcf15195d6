import { readFileSync } from 'node:fs'

/**
 * Milliseconds of CPU the calling thread has used so far: what a pattern's scan costs,
 * whatever else the host runs (docs/design.md, "What a rule may cost"). Wall-clock time
 * also counts the time the thread waited for a CPU, which on a busy host is most of it.
 */
export type CpuClock = () => number

const threadCpuUsage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage

/** Linux: the first field of /proc/thread-self/schedstat is the thread's time on a CPU, in ns. */
function schedstatMs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]) / 1e6
}

function schedstatWorks(): boolean {
  try {
    return Number.isFinite(schedstatMs())
  } catch {
    return false
  }
}

/**
 * Node 23.9 and later tell a thread its own CPU time; Node 20 does not, so on Linux the
 * kernel's count for this thread is read (exact to a scheduler tick, a few ms); elsewhere
 * the process's, which also counts the work of its other threads (analysis threads, GC).
 */
export const threadCpuMs: CpuClock = threadCpuUsage
  ? () => {
      const { user, system } = threadCpuUsage.call(process)
      return (user + system) / 1000
    }
  : schedstatWorks()
    ? schedstatMs
    : () => {
        const { user, system } = process.cpuUsage()
        return (user + system) / 1000
      }
