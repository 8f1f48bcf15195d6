import type { IdleTimers } from '../../src/worker/analysis/idle-period.js'

/** A timer armed on a TestTimers clock: when it is due, and whether it was cleared or fired. */
export interface ArmedTimer {
  fire: () => void
  ms: number
  at: number
  cleared: boolean
  fired: boolean
}

/**
 * A clock the test moves and the timers armed on it (idle-period.ts), fired only by the
 * test: it counts timers and fires them, it never waits for one.
 */
export function testTimers() {
  let now = 0
  const armed: ArmedTimer[] = []
  const timers: IdleTimers = {
    now: () => now,
    set: (fire, ms) => {
      const timer = { fire, ms, at: now + ms, cleared: false, fired: false }
      armed.push(timer)
      return timer
    },
    clear: (timer) => {
      ;(timer as ArmedTimer).cleared = true
    },
  }
  const pending = () => armed.filter((timer) => !timer.cleared && !timer.fired)
  return {
    timers,
    armed,
    pending,
    /** Moves the clock on by `ms` and fires every timer then due, in the order they were armed. */
    elapse(ms: number) {
      now += ms
      for (const timer of pending().filter((due) => due.at <= now)) {
        timer.fired = true
        timer.fire()
      }
    },
  }
}
