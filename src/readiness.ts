import type { Gauge } from 'prom-client'

// Service readiness (spec "States and transitions", D26, D28). One object, read by the
// /health/ready route and the request gate, written by the process entry.

export type ReadinessState = 'starting' | 'ready' | 'shutting_down' | 'startup_failed'

/** Conditions of a running service that make it unfit for new traffic, with no state change. */
export type ReadinessFault = 'queue_stalled' | 'storage_unavailable'

export class Readiness {
  private current: ReadinessState = 'starting'
  private readonly faults = new Set<ReadinessFault>()

  constructor(private readonly gauge?: Gauge) {
    gauge?.set(0)
  }

  get state(): ReadinessState {
    return this.current
  }

  get isReady(): boolean {
    return this.current === 'ready'
  }

  /**
   * What a readiness probe is told: DOWN with the state while not ready, DOWN with a fault
   * while one holds (the API still answers: a stalled queue answers webhooks 503 by itself).
   */
  get probe(): { up: true } | { up: false; reason: ReadinessState | ReadinessFault } {
    if (this.current !== 'ready') return { up: false, reason: this.current }
    const [fault] = this.faults
    return fault ? { up: false, reason: fault } : { up: true }
  }

  set(state: ReadinessState): void {
    // Shutting down is final: a late "ready" from a slow start must not reopen the door.
    if (this.current === 'shutting_down' && state !== 'shutting_down') return
    this.current = state
    this.updateGauge()
  }

  fault(fault: ReadinessFault, holds: boolean): void {
    if (holds) this.faults.add(fault)
    else this.faults.delete(fault)
    this.updateGauge()
  }

  private updateGauge(): void {
    this.gauge?.set(this.probe.up ? 1 : 0)
  }
}
