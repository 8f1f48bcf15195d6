import type { FindingView } from '../report/finding-view.js'
import type { DiagnosisExplanation } from '../rules/explanation.js'
import { iso } from './incident-views.js'

// "Why this branch" of one incident, as both adapters read it (docs/api.md, "Explanation"):
// the explanation its latest diagnosis stored (rules/explanation.ts) and what is kept of the
// evidence that diagnosis saw.

export type { ConditionOutcome, DiagnosisExplanation, RuleExplanation } from '../rules/explanation.js'

export interface IncidentExplanation {
  incidentId: string
  /** The diagnosed event: the incident's latest diagnosis (a re-fire has its own). */
  eventId: string
  diagnosedAt: string
  /** The primary finding as the report showed it. */
  primary: FindingView | null
  /** Null for a diagnosis made by a version that did not store explanations. */
  explanation: DiagnosisExplanation | null
  /** The evidence bundle kept for it (docs/design.md, "Stored evidence"); null when none is stored. */
  evidence: { storedBytes: number; rawBytes: number; truncated: boolean } | null
}

/** The row each adapter reads: the latest diagnosis with its bundle's sizes. */
export interface ExplanationRow {
  event_id: string
  created_at: number | string
  /** The result's members as JSON text; null when absent. */
  primary_json: string | null
  explanation_json: string | null
  stored_bytes: number | string | null
  raw_bytes: number | string | null
  truncated: number | null
}

/**
 * The latest diagnosis of an incident with its bundle's sizes; `members` selects the
 * result's `primary` and `explanation` (SQLite's JSON functions), or the result whole
 * (PostgreSQL, whose JSON functions refuse an escaped U+0000), `bytes` is the bundle's
 * length, each in its dialect.
 */
export const explanationSql = (members: string, bytes: string, incident: string) =>
  `SELECT r.event_id, r.created_at, ${members}, ${bytes} AS stored_bytes, b.raw_bytes, b.truncated
   FROM results r LEFT JOIN evidence_bundles b ON b.event_id = r.event_id
   WHERE r.incident_id = ${incident} AND r.kind = 'diagnosis' ORDER BY r.created_at DESC, r.event_id DESC LIMIT 1`

export function explanationView(incidentId: string, row: ExplanationRow): IncidentExplanation {
  const parse = <T>(json: string | null) => (json === null ? null : (JSON.parse(json) as T))
  return {
    incidentId,
    eventId: row.event_id,
    diagnosedAt: iso(Number(row.created_at)) as string,
    primary: parse<FindingView>(row.primary_json),
    explanation: parse<DiagnosisExplanation>(row.explanation_json),
    evidence:
      row.stored_bytes === null
        ? null
        : { storedBytes: Number(row.stored_bytes), rawBytes: Number(row.raw_bytes), truncated: row.truncated === 1 },
  }
}

/**
 * Members of a stored result as JSON text, read in the process: PostgreSQL's JSON functions
 * (jsonb and json alike) refuse the escaped U+0000 a log line's NUL byte leaves in a result.
 */
export function resultMembers<K extends string>(
  result: string,
  names: readonly K[],
): Record<`${K}_json`, string | null> {
  const parsed = JSON.parse(result) as Record<string, unknown>
  return Object.fromEntries(
    names.map((name) => [`${name}_json`, parsed[name] === undefined ? null : JSON.stringify(parsed[name])]),
  ) as Record<`${K}_json`, string | null>
}
