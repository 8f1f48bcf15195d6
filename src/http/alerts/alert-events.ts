import { alertIdentity, alertmanagerFingerprint, sortedNames } from '../../incidents/alert-identity.js'
import { toInstant } from '../../instant.js'
import type { WebhookPayload } from '../../schema-types/webhook-payload.js'
import type { AlertEventInput } from '../../store/sqlite/event-writer.js'

export type { WebhookPayload }

/**
 * Each alert of a payload becomes one event. Its identity and fingerprint are computed
 * from its labels and its times parsed to instants; the fingerprint the sender claims is
 * kept only to be compared (docs/design.md, "Incidents").
 */
export function toAlertEvents(payload: WebhookPayload): AlertEventInput[] {
  return payload.alerts.map((alert) => {
    const { labels } = alert
    const names = sortedNames(labels)
    return {
      identity: alertIdentity(labels, names),
      fingerprint: alertmanagerFingerprint(labels, names),
      claimedFingerprint: alert.fingerprint ?? null,
      status: alert.status,
      startsAtText: alert.startsAt,
      startsAt: toInstant(alert.startsAt),
      endsAtText: alert.endsAt ?? null,
      endsAt: alert.endsAt === undefined ? null : toInstant(alert.endsAt),
      // The schema guarantees the six required labels.
      alertname: labels.alertname as string,
      instance: labels.appserver_instance as string,
      severity: labels.severity as string,
      alert,
    }
  })
}

/** Alerts whose sender-claimed fingerprint is not the one of their labels. */
export function fingerprintMismatches(events: readonly AlertEventInput[]) {
  return events.filter((e) => e.claimedFingerprint !== null && e.claimedFingerprint.toLowerCase() !== e.fingerprint)
}
