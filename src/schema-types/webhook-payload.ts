// Generated from schemas/alertmanager-webhook-v4.schema.json by src/schema-types/generate-schema-types.mjs (npm run build): do not edit.

export type RequiredLabel = string

/**
 * The fields of the interface spec are required; Alertmanager's other v4 fields and later additions (notification_reason, routeLabels, ...) are accepted and stored as sent.
 */
export interface WebhookPayload {
  version?: '4'
  receiver: string
  status: 'firing' | 'resolved'
  groupKey: string
  truncatedAlerts?: number
  groupLabels?: LabelSet
  commonLabels?: LabelSet
  commonAnnotations?: Annotations
  externalURL?: string
  /**
   * @minItems 1
   * @maxItems 1000
   */
  alerts: Alert[]
  [k: string]: unknown
}
export interface LabelSet {
  [k: string]: string
}
export interface Annotations {
  [k: string]: string
}
export interface Alert {
  status: 'firing' | 'resolved'
  labels: LabelSet & {
    alertname: RequiredLabel
    environment: RequiredLabel
    host: RequiredLabel
    appserver_instance: RequiredLabel
    check: RequiredLabel
    severity: RequiredLabel
    [k: string]: unknown
  }
  annotations: Annotations
  startsAt: string
  endsAt?: string
  generatorURL?: string
  fingerprint?: string
  [k: string]: unknown
}
