import type { FastifyBaseLogger } from 'fastify'
import type { TransitionKind } from '../../incidents/lifecycle.js'
import type { AlertEventInput, IngestedEvent } from '../../store/ingest-port.js'

// The webhook's lines about each alert (docs/operations.md, "Reading the log"): each carries
// the event id, alertname and instance (a child of the request's logger, so its reqId too).

/** Transitions an operator looks for in the log (docs/design.md, "Incidents"). */
const lifecycleLines: Partial<Record<TransitionKind, { level: 'info' | 'warn'; msg: string }>> = {
  unmatched_resolution: {
    level: 'warn',
    msg: 'a resolution for an occurrence never seen firing: filed as its own resolved incident, no recovery sent',
  },
  resolved_merged: {
    level: 'info',
    msg: 'a resolution with an earlier start (Alertmanager merged the alert) ended the open occurrence',
  },
}

/**
 * One line per stored notification, at info, and its lifecycle line when it has one; a
 * repeat (most of the traffic) only at debug, and without the cost of a child logger
 * otherwise. A fingerprint the sender claimed and the labels do not give is said at warn.
 */
export function logIngested(
  log: FastifyBaseLogger,
  alerts: readonly AlertEventInput[],
  events: readonly IngestedEvent[],
): void {
  const repeats = log.level === 'debug' || log.level === 'trace'
  const stored = repeats || log.level === 'info'
  for (const [i, event] of events.entries()) {
    const { alertname, instance, fingerprint, claimedFingerprint } = alerts[i] as AlertEventInput
    const mismatched = claimedFingerprint !== null && claimedFingerprint.toLowerCase() !== fingerprint
    const said = lifecycleLines[event.transition]
    // Nothing this level shows: no child logger made (an alert storm is thousands a second).
    if (!mismatched && !(event.duplicate ? repeats : stored || said?.level === 'warn')) continue
    const alertLog = log.child({ eventId: event.eventId, alertname, instance })
    const { incidentId, transition } = event
    if (mismatched) {
      alertLog.warn(
        { claimed: claimedFingerprint, computed: fingerprint },
        'ignoring a sender fingerprint that does not match the labels',
      )
    }
    if (event.duplicate) {
      alertLog.debug({ incidentId }, 'alert repeated: nothing changed')
      continue
    }
    alertLog.info({ incidentId, transition, fingerprint }, 'alert stored')
    if (said) alertLog[said.level]({ incidentId, fingerprint }, said.msg)
  }
}
