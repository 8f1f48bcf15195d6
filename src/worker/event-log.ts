// The log of one event as the worker processes it (docs/operations.md, "Reading the log"):
// every line about it carries its id from the claim on, and its alert once the event is
// read, so that one grep for an eventId, an alertname or an instance finds them all.

/** A structured logger that can make children with more fields (pino's, Fastify's). */
export interface LogSink {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
  child(bindings: Record<string, unknown>): LogSink
}

export class EventLog {
  private sink: LogSink

  constructor(base: LogSink, eventId: string) {
    this.sink = base.child({ eventId })
  }

  /** The event was read: its alert goes on every later line. */
  identify(alert: { alertname: string; instance: string; incidentId: string }): void {
    this.sink = this.sink.child(alert)
  }

  get log(): LogSink {
    return this.sink
  }
}
