import { setFlagsFromString } from 'node:v8'

/** The clock and timer of an idle period, injectable so that the tests count instead of waiting. */
export interface IdleTimers {
  now(): number
  set(fire: () => void, ms: number): unknown
  clear(handle: unknown): void
}

export const realTimers: IdleTimers = {
  now: () => performance.now(),
  // Unreferenced: an idle period never keeps the process alive.
  set: (fire, ms) => setTimeout(fire, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

/**
 * Calls `onIdle` once per stretch of idleness that lasts `ms` (0: never). Its one timer is
 * armed when the owner goes idle; going busy only marks it, so a busy owner costs no timer
 * work: a timer that fires while busy, or early, is re-armed only when idle, for what is
 * left. `onIdle` returns false when it cannot act yet; it is asked again a period later.
 */
export class IdlePeriod {
  private since: number | null
  private timer: unknown
  private closed = false

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => boolean,
    private readonly timers: IdleTimers = realTimers,
  ) {
    // Idle from the start: a service that gets no work gives its memory back too.
    this.since = timers.now()
    this.arm(ms)
  }

  busy(): void {
    this.since = null
  }

  idle(): void {
    if (this.since !== null) return
    this.since = this.timers.now()
    if (this.timer === undefined) this.arm(this.ms)
  }

  close(): void {
    this.closed = true
    if (this.timer !== undefined) this.timers.clear(this.timer)
    this.timer = undefined
  }

  private arm(ms: number): void {
    if (this.ms > 0 && !this.closed) this.timer = this.timers.set(() => this.fired(), ms)
  }

  private fired(): void {
    this.timer = undefined
    if (this.closed || this.since === null) return
    const left = this.since + this.ms - this.timers.now()
    if (left > 0) this.arm(left)
    else if (!this.onIdle()) this.arm(this.ms)
  }
}

/**
 * One full collection of this isolate, compacting, where Node runs with --expose-gc
 * (bin/diagnostic-service): its milliseconds, or null without it. Called once an idle
 * period has passed, never on a busy path: the buffers the last events left dead (their
 * 512 KiB excerpts) wait for it otherwise, and without compaction the old space keeps its
 * half-empty pages (docs/performance.md, "Idle analysis threads retired"). V8 reads the
 * compaction flag when the collection starts; it is set for this one collection only.
 */
export function collectGarbage(): number | null {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) return null
  const started = performance.now()
  setFlagsFromString('--compact-on-every-full-gc')
  try {
    gc()
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc')
  }
  return performance.now() - started
}
