import { describe, expect, it } from 'vitest'
import { redactAlert, redactGroupKey, redactNamedValue } from '../../src/evidence/redact-alert.js'

describe('redaction of what an alert carries (issue 26, point 6)', () => {
  it.each([
    ['db_password', 'plainvalue', '[REDACTED]'],
    ['api_token', 'abc123def456', '[REDACTED]'],
    ['datasource', 'jdbc:postgresql://app:S3cret@db/orders', 'jdbc:postgresql://app:[REDACTED]@db/orders'],
    ['description', 'connect with password=hunter2\nthen retry', 'connect with password=[REDACTED]\nthen retry'],
    ['instance', 'app-01', 'app-01'],
    ['summary', 'Health check failing', 'Health check failing'],
  ])('%s=%s reads as %s', (name, value, expected) => {
    expect(redactNamedValue(name, value)).toBe(expected)
  })

  it('redacts labels, annotations and generatorURL, and keeps the rest as sent', () => {
    const alert = {
      status: 'firing',
      labels: { alertname: 'A', secret_key: 'xyz' },
      annotations: { runbook: 'https://u:pw123456@wiki.example/run' },
      generatorURL: 'https://prom.example/graph?token=abcdef123456',
      startsAt: '2026-11-01T10:00:00Z',
    }
    expect(redactAlert(alert)).toEqual({
      status: 'firing',
      labels: { alertname: 'A', secret_key: '[REDACTED]' },
      annotations: { runbook: 'https://u:[REDACTED]@wiki.example/run' },
      generatorURL: 'https://prom.example/graph?token=[REDACTED]',
      startsAt: '2026-11-01T10:00:00Z',
    })
    expect(alert.labels.secret_key).toBe('xyz') // the input is not changed
  })

  it('redacts label values inside a group key', () => {
    expect(redactGroupKey('{}:{db_password="hunter2"}')).not.toContain('hunter2')
  })
})
