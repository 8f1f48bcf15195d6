import { ownThreadId, ThreadCpuClock } from '../thread-cpu.js'

/**
 * Milliseconds of CPU the calling thread has used so far: what a pattern's scan costs,
 * whatever else the host runs (docs/design.md, "What a rule may cost"). Wall-clock time
 * also counts the time the thread waited for a CPU, which on a busy host is most of it.
 */
export type CpuClock = () => number

const threadCpuUsage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage

const processCpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** The kernel's nanosecond count for this thread (src/thread-cpu.ts); ticks of 10 ms would be too coarse. */
const kernel = threadCpuUsage ? null : ThreadCpuClock.open(ownThreadId())

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
  : kernel?.source === 'schedstat'
    ? () => kernel.readMs() ?? processCpuMs()
    : processCpuMs
