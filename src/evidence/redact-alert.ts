import { redact } from './redact.js'
import { mask } from './secret-signatures.js'

// What an alert carries besides logs (labels, annotations, generatorURL, the group key) is
// redacted with the rules of the logs before it is stored, and so before it reaches a
// report or the incidents API (docs/design.md, "Secret redaction"). Over-redacting is safe.

/**
 * One value under its name: the value is read as `name=value`, so that a label named
 * `db_password` loses its value as `db_password=...` in a log line would. When the rules
 * rewrote the name too, the whole value goes.
 */
export function redactNamedValue(name: string, value: string): string {
  const prefix = `${name}=`
  const redacted = redact(`${prefix}${value}`)
  if (redacted === `${prefix}${value}`) return value
  return redacted.startsWith(prefix) ? redacted.slice(prefix.length) : mask
}

function redactRecord(record: Record<string, string> | undefined): Record<string, string> | undefined {
  if (record === undefined) return undefined
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(record)) out[name] = redactNamedValue(name, value)
  return out
}

/** The alert as stored: its labels, annotations and generatorURL redacted, the rest as sent. */
export function redactAlert<A extends { labels: Record<string, string>; annotations?: Record<string, string> }>(
  alert: A & { generatorURL?: string },
): A {
  const redacted: A & { generatorURL?: string } = { ...alert, labels: redactRecord(alert.labels) ?? {} }
  if (alert.annotations !== undefined) redacted.annotations = redactRecord(alert.annotations)
  if (alert.generatorURL !== undefined) redacted.generatorURL = redact(alert.generatorURL)
  return redacted
}

/** Alertmanager's group key holds label values (`{}:{db_password="..."}`). */
export function redactGroupKey(groupKey: string): string {
  return redact(groupKey)
}
