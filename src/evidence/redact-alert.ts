import { redact } from './redact.js'
import type { RedactionOptions } from './redaction-options.js'
import { mask } from './secret-signatures.js'

// What an alert carries besides logs (labels, annotations, generatorURL, the group key) is
// redacted with the rules of the logs before it is stored, and so before it reaches a
// report or the incidents API (docs/design.md, "Incidents"). Over-redacting is safe.

type Entry = [name: string, value: string]

/**
 * Values under their names, each read as a line `name=value`, so that a label named
 * `db_password` loses its value as `db_password=...` in a log would. All in one redaction
 * pass (one scan instead of one a value: 34 us an alert before); redaction keeps the number
 * of lines, so the text splits back into its values. When the rules rewrote a name too,
 * its whole value goes.
 */
function redactEntries(entries: readonly Entry[], options: RedactionOptions = {}): string[] {
  const lines = entries.map(([name, value]) => `${name}=${value}`)
  const text = lines.join('\n')
  const redacted = redact(text, options)
  if (redacted === text) return entries.map(([, value]) => value)
  const out = redacted.split('\n')
  let at = 0
  return entries.map(([name], i) => {
    const count = (lines[i] as string).split('\n').length
    const line = out.slice(at, at + count).join('\n')
    at += count
    return line.startsWith(`${name}=`) ? line.slice(name.length + 1) : mask
  })
}

export function redactNamedValue(name: string, value: string): string {
  return redactEntries([[name, value]])[0] as string
}

/** The alert as stored: its labels, annotations and generatorURL redacted, the rest as sent. */
export function redactAlert<A extends { labels: Record<string, string>; annotations?: Record<string, string> }>(
  alert: A & { generatorURL?: string },
  options: RedactionOptions = {},
): A {
  const labels = Object.entries(alert.labels)
  const annotations = Object.entries(alert.annotations ?? {})
  const url: Entry[] = alert.generatorURL === undefined ? [] : [['generatorURL', alert.generatorURL]]
  const values = redactEntries([...labels, ...annotations, ...url], options)
  const redacted: A & { generatorURL?: string } = { ...alert }
  redacted.labels = Object.fromEntries(labels.map(([name], i) => [name, values[i] as string]))
  if (alert.annotations !== undefined) {
    redacted.annotations = Object.fromEntries(
      annotations.map(([name], i) => [name, values[labels.length + i] as string]),
    )
  }
  if (alert.generatorURL !== undefined) redacted.generatorURL = values[values.length - 1] as string
  return redacted
}

/** Alertmanager's group key holds label values (`{}:{db_password="..."}`). */
export function redactGroupKey(groupKey: string, options: RedactionOptions = {}): string {
  return redact(groupKey, options)
}
