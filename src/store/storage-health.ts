import type { Counter, Gauge } from 'prom-client'
import { hostFaultCode } from '../host-faults.js'
import type { Readiness } from '../readiness.js'
import type { StorageHealthPort } from './sqlite/write-batcher.js'

interface Log {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/**
 * Whether the database takes writes (docs/operations.md). A host fault on any write turns
 * readiness DOWN (`storage_unavailable`) and the gauge to 0; from then on a small write is
 * tried every `probeMs`, and the first write that commits, probe or real, brings both back.
 */
export class StorageHealth implements StorageHealthPort {
  private faulted = false
  private timer: NodeJS.Timeout | undefined

  constructor(
    /** A small write; PostgreSQL's answers later. */
    private readonly probe: () => void | Promise<unknown>,
    private readonly readiness: Readiness,
    private readonly metrics: { storageWritable: Gauge; storageFaults: Counter<'operation'> },
    private readonly log: Log,
    private readonly options: { probeMs: number },
  ) {
    metrics.storageWritable.set(1)
  }

  failed(operation: string, error: unknown): void {
    const code = hostFaultCode(error)
    if (!code) return
    this.metrics.storageFaults.inc({ operation })
    if (this.faulted) return
    this.faulted = true
    this.metrics.storageWritable.set(0)
    this.readiness.fault('storage_unavailable', true)
    this.log.error({ operation, code, err: error }, 'the database does not take writes; retrying in the background')
    this.timer = setInterval(() => void this.tryProbe(), this.options.probeMs)
    this.timer.unref()
  }

  succeeded(): void {
    if (!this.faulted) return
    this.faulted = false
    clearInterval(this.timer)
    this.metrics.storageWritable.set(1)
    this.readiness.fault('storage_unavailable', false)
    this.log.info({}, 'the database takes writes again')
  }

  stop(): void {
    clearInterval(this.timer)
  }

  private probing = false

  private async tryProbe(): Promise<void> {
    if (this.probing) return
    this.probing = true
    try {
      await this.probe()
      this.succeeded()
    } catch (error) {
      this.failed('probe', error)
    } finally {
      this.probing = false
    }
  }
}
