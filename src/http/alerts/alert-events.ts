import { createHash } from 'node:crypto'
import type { AlertEventInput, AlertStatus } from '../../store/event-writer.js'

/** The version-4 payload after schema validation (only the fields we read are typed). */
export interface WebhookPayload {
  receiver: string
  status: AlertStatus
  groupKey: string
  alerts: WebhookAlert[]
  [extra: string]: unknown
}

export interface WebhookAlert {
  status: AlertStatus
  labels: Record<string, string>
  annotations: Record<string, string>
  startsAt: string
  endsAt?: string
  fingerprint?: string
  [extra: string]: unknown
}

/** SHA-256 of the labels sorted by name: the identity of an alert sent without fingerprint (D11). */
export function labelHash(labels: Record<string, string>): string {
  const sorted = Object.keys(labels)
    .sort()
    .map((name) => [name, labels[name]])
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex')
}

/** D11: each alert of a payload becomes one event, identified by fingerprint or label hash. */
export function toAlertEvents(payload: WebhookPayload): AlertEventInput[] {
  return payload.alerts.map((alert) => {
    const { labels } = alert
    return {
      identity: alert.fingerprint ?? labelHash(labels),
      fingerprint: alert.fingerprint ?? null,
      status: alert.status,
      startsAt: alert.startsAt,
      endsAt: alert.endsAt ?? null,
      // The schema guarantees the six required labels.
      alertname: labels.alertname as string,
      instance: labels.appserver_instance as string,
      severity: labels.severity as string,
      alert,
    }
  })
}
