import { readFileSync, readlinkSync } from 'node:fs'

// The CPU time of one analysis thread, read by the pool from outside the thread: a thread
// stuck in a regular expression cannot answer, and Node 20 has no per-thread CPU clock
// (process.cpuUsage counts every thread). Linux keeps one per thread under /proc
// (docs/design.md, "A bound on every analysis"); elsewhere there is none and the pool
// bounds wall time instead.

/** The kernel's id of the calling thread, or null where /proc does not say it. */
export function ownThreadId(): number | null {
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    return Number.isSafeInteger(tid) && tid > 0 ? tid : null
  } catch {
    return null
  }
}

/**
 * The CPU time thread `tid` of this process has used, in milliseconds, or null when it
 * cannot be read (the thread has exited). schedstat counts nanoseconds; stat, always
 * there, counts clock ticks (USER_HZ, 100 on Linux).
 */
export function threadCpuMs(tid: number): number | null {
  const task = `/proc/self/task/${tid}`
  try {
    const ns = Number(readFileSync(`${task}/schedstat`, 'latin1').split(' ')[0])
    // A kernel without scheduler statistics shows 0 there.
    if (ns > 0) return ns / 1e6
  } catch {}
  try {
    const stat = readFileSync(`${task}/stat`, 'latin1')
    // Fields after the command name, which is in parentheses and may hold spaces: utime
    // and stime are the 14th and 15th fields of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return null
  }
}
