import { closeSync, openSync, readlinkSync, readSync } from 'node:fs'

// The CPU time of one thread, as Linux counts it under /proc: Node 20 has no per-thread CPU
// clock (process.cpuUsage counts every thread). The analysis pool reads its threads' from
// outside (a thread stuck in a regular expression cannot answer; docs/design.md, "A bound on
// every analysis"), the pattern check its own (src/rules/thread-cpu.ts). Elsewhere there is
// none, and each says what it does instead.

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
 * The CPU clock of thread `tid` of this process. The file stays open: reading it again
 * from its start costs about a microsecond, opening it tens (it is read for every task).
 * schedstat counts nanoseconds; stat, always there, counts clock ticks (USER_HZ, 100 on
 * Linux), and is used where the kernel keeps no scheduler statistics (schedstat shows 0).
 */
export class ThreadCpuClock {
  private readonly buffer = Buffer.alloc(512)
  private closed = false

  private constructor(
    private readonly fd: number,
    /** schedstat counts nanoseconds; stat clock ticks of 10 ms. */
    readonly source: 'schedstat' | 'stat',
  ) {}

  static open(tid: number | null): ThreadCpuClock | null {
    if (tid === null) return null
    for (const source of ['schedstat', 'stat'] as const) {
      let fd: number | undefined
      try {
        fd = openSync(`/proc/self/task/${tid}/${source}`, 'r')
        const clock = new ThreadCpuClock(fd, source)
        const ms = clock.readMs()
        // A running thread has used some time: 0 there means no scheduler statistics.
        if (ms !== null && (ms > 0 || source === 'stat')) return clock
      } catch {}
      if (fd !== undefined) closeSync(fd)
    }
    return null
  }

  /** Milliseconds of CPU time the thread has used, or null once it has exited. */
  readMs(): number | null {
    if (this.closed) return null
    try {
      const text = this.buffer.toString('latin1', 0, readSync(this.fd, this.buffer, 0, this.buffer.length, 0))
      if (text === '') return null
      // stat: after the command name, in parentheses and perhaps with spaces, utime and
      // stime are the 14th and 15th fields of the line.
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
      const ms =
        this.source === 'schedstat' ? Number(text.split(' ')[0]) / 1e6 : (Number(fields[11]) + Number(fields[12])) * 10
      return Number.isFinite(ms) ? ms : null
    } catch {
      return null
    }
  }

  /** Once: a second close could close another file that reused the descriptor. */
  close(): void {
    if (this.closed) return
    this.closed = true
    closeSync(this.fd)
  }
}
