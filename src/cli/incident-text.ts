import type { EvidenceSummary } from '../evidence/collect.js'
import { formatDuration } from '../report/report-model.js'
import { metricsFacts } from '../report/runtime-words.js'
import { printable } from './output.js'

// `appserver-diag incidents show ID` as text: what the report said and what became of it,
// from GET /api/v1/incidents/ID (docs/api.md, "One incident"). Every value the service
// returns is printed through `printable`: a label can hold anything.

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field
type Json = any

function findingLine(finding: Json): string {
  const confidence = finding.confidence ? ` / ${finding.confidence}` : ''
  return `${printable(finding.branch)} ${printable(finding.ruleName)} (${printable(finding.category)}, ${printable(finding.classification)}${confidence})`
}

function diagnosisLines(diagnosis: Json): string[] {
  if (!diagnosis) return ['Diagnosis:  not made yet (the event is queued or being processed)']
  const primary = diagnosis.primary ?? {}
  const lines = [`Diagnosis:  ${findingLine(primary)} [${printable(primary.origin)} rule ${printable(primary.id)}]`]
  if (primary.basis) lines.push(`Confidence: ${printable(primary.basis, 1000)}`)
  if (primary.assessment) lines.push(`            ${printable(primary.assessment, 1000)}`)
  if (diagnosis.lifecycle) lines.push(`Note:       ${printable(diagnosis.lifecycle, 1000)}`)
  for (const other of (diagnosis.matches ?? []).slice(1)) lines.push(`Also:       ${findingLine(other)}`)
  for (const excerpt of diagnosis.excerpts ?? []) {
    lines.push('', `Matched by ${printable(excerpt.branch)} in ${printable(excerpt.file, 500)}:`)
    for (const line of excerpt.lines ?? [])
      lines.push(`  ${line.match ? '>>' : '  '} ${printable(line.number)}: ${printable(line.text, 500)}`)
  }
  const omitted = diagnosis.omitted ?? {}
  if (omitted.matches || omitted.excerpts)
    lines.push(`(${omitted.matches ?? 0} matches and ${omitted.excerpts ?? 0} excerpts left out: the mail has them)`)
  return lines
}

function evidenceLines(evidence: EvidenceSummary | null): string[] {
  if (!evidence) return []
  if (!evidence.instanceKnown) return ['', 'Evidence:   the instance is not in the inventory: none was collected']
  const lines = ['', 'Evidence:']
  for (const log of evidence.logs) {
    const what = log.error
      ? printable(log.error)
      : `${log.lines} lines, ${log.bytes} bytes${log.truncated ? ' (tail)' : ''}`
    lines.push(`  log ${printable(log.file, 500)}: ${what}`)
  }
  if (evidence.spool) {
    const spool = evidence.spool
    lines.push(
      `  container events: ${spool.error ? printable(spool.error) : `${spool.records.length} in the alert window`}`,
    )
  }
  const metrics = evidence.metrics
  if (metrics) {
    const facts = metrics.error ? `unavailable (${printable(metrics.error)})` : metricsFacts(metrics).join(', ')
    lines.push(`  metrics: ${facts}`)
  }
  const probe = evidence.probe
  if (probe) {
    const status = probe.statusCode ? ` (HTTP ${probe.statusCode})` : ''
    lines.push(
      `  health probe: ${printable(probe.outcome)}${status}${probe.latencyMs ? ` in ${probe.latencyMs} ms` : ''}`,
    )
  }
  return lines
}

/** The incident as lines of text. */
export function incidentText(incident: Json): string[] {
  const ended = incident.endedAt
    ? `${printable(incident.endedAt)} (${incident.status}${incident.durationSeconds === null ? '' : `, after ${formatDuration(incident.durationSeconds * 1000)}`})`
    : '-'
  const lines = [
    `Incident:   ${printable(incident.id)} (${printable(incident.status)})`,
    `Alert:      ${printable(incident.alertname)} on ${printable(incident.instance)}, severity ${printable(incident.severity)}, fingerprint ${printable(incident.fingerprint)}`,
    `Started:    ${printable(incident.startsAt)}, opened ${printable(incident.openedAt)}`,
    `Ended:      ${ended}`,
  ]
  if (incident.supersededBy) lines.push(`Superseded: by incident ${printable(incident.supersededBy)}`)
  if (incident.refires > 0) lines.push(`Re-fired:   ${incident.refires} times`)
  lines.push('', ...diagnosisLines(incident.diagnosis), ...evidenceLines(incident.evidence), '', 'Events:')
  for (const event of incident.events ?? [])
    lines.push(
      `  ${printable(event.receivedAt)}  ${printable(event.status)}  ${printable(event.transition)}  ${printable(event.id)}`,
    )
  if (incident.nextEventsCursor)
    lines.push(`  more events: the same command with --events-cursor ${incident.nextEventsCursor}`)
  lines.push('', 'Mails:')
  if ((incident.delivery ?? []).length === 0) lines.push('  none yet')
  for (const mail of incident.delivery ?? []) {
    const when = mail.sentAt ? ` ${printable(mail.sentAt)}` : ''
    const attempts = `${mail.attempts} attempt${mail.attempts === 1 ? '' : 's'}`
    const error = mail.lastError ? `, last error: ${printable(mail.lastError)}` : ''
    lines.push(
      `  ${printable(mail.kind)} ${printable(mail.status)}${when} (${attempts}${error}): ${printable(mail.subject)}`,
    )
  }
  return lines
}
