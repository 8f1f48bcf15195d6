import type { Gauge } from 'prom-client'

// Service readiness (spec "States and transitions", D26, D28). One object, read by the
// /health/ready route and the request gate, written by the process entry.

export type ReadinessState = 'starting' | 'ready' | 'shutting_down' | 'startup_failed'

export class Readiness {
  private current: ReadinessState = 'starting'

  constructor(private readonly gauge?: Gauge) {
    gauge?.set(0)
  }

  get state(): ReadinessState {
    return this.current
  }

  get isReady(): boolean {
    return this.current === 'ready'
  }

  set(state: ReadinessState): void {
    // Shutting down is final: a late "ready" from a slow start must not reopen the door.
    if (this.current === 'shutting_down' && state !== 'shutting_down') return
    this.current = state
    this.gauge?.set(state === 'ready' ? 1 : 0)
  }
}
