export const requiredLabels = ['alertname', 'environment', 'host', 'appserver_instance', 'check', 'severity'] as const

/**
 * An alert as Alertmanager sends it. `id` (not an Alertmanager field) becomes the label
 * `alert_id`: alerts of different ids are different alerts, since the labels decide.
 */
export function alert(overrides: Record<string, unknown> = {}, labels: Record<string, string> = {}) {
  const { id, ...rest } = overrides
  return {
    status: 'firing',
    labels: {
      alertname: 'AppServerDown',
      environment: 'prod',
      host: 'host-01',
      appserver_instance: 'app-01',
      check: 'health',
      severity: 'critical',
      ...(id === undefined ? {} : { alert_id: String(id) }),
      ...labels,
    },
    annotations: { summary: 'Health check failing' },
    startsAt: '2026-11-22T05:00:00.000Z',
    ...rest,
  }
}

export function webhook(alerts: unknown[], overrides: Record<string, unknown> = {}) {
  return {
    version: '4',
    receiver: 'diagnostic-service',
    status: 'firing',
    groupKey: '{}:{alertname="AppServerDown"}',
    groupLabels: { alertname: 'AppServerDown' },
    commonLabels: {},
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example:9093',
    truncatedAlerts: 0,
    alerts,
    ...overrides,
  }
}
