// What the incident detail shows of a stored diagnosis (docs/design.md, "Every response is
// bounded"). Every part of a result is bounded, but some only by the catalogue's size
// (a match and an excerpt per matching rule, up to DIAG_MAX_CUSTOM_RULES) or by a spool's
// megabytes (container events); the detail shows the first of each, as ranked, and says
// how many it left out. The mail has them all.

export const detailBounds = { matches: 50, excerpts: 20, containerEvents: 20 }

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

export function boundedDiagnosis(result: Record<string, unknown>) {
  const matches = list(result.matches)
  const excerpts = list(result.excerpts)
  const evidence = result.evidence as { spool?: { records?: unknown } | null } | undefined
  const records = list(evidence?.spool?.records)
  const bounded: Record<string, unknown> = {
    ...result,
    matches: matches.slice(0, detailBounds.matches),
    excerpts: excerpts.slice(0, detailBounds.excerpts),
    omitted: {
      matches: Math.max(0, matches.length - detailBounds.matches),
      excerpts: Math.max(0, excerpts.length - detailBounds.excerpts),
      containerEvents: Math.max(0, records.length - detailBounds.containerEvents),
    },
  }
  if (evidence?.spool && records.length > detailBounds.containerEvents) {
    // The newest, as the report shows them.
    bounded.evidence = {
      ...evidence,
      spool: { ...evidence.spool, records: records.slice(-detailBounds.containerEvents) },
    }
  }
  return bounded
}
