import { basename } from 'node:path'
import type { ConsoleReads, IncidentMail, Occurrence } from '../store/console-port.js'
import type { IncidentExplanation } from '../store/incident-explanation.js'
import type { IncidentTimeline } from '../store/incident-timeline.js'
import type { EventPage, IncidentsReader } from '../store/incident-views.js'
import { rankingView, ruleView } from './explanation-view.js'
import { shownTime } from './time-words.js'
import { timelineView } from './timeline-view.js'

// The incident page is a list of sections, each built from what was read for the incident
// (docs/design.md, "The web console"). A new section is one builder here, in the order the
// page shows it, and one partial `_section-<id>.hbs`; what it needs to read is added to
// `IncidentContext` and `loadIncidentContext`.

type Detail = NonNullable<Awaited<ReturnType<IncidentsReader['get']>>>

export interface IncidentContext {
  /** The incident with its first notification (its alert as stored, redacted), diagnosis and evidence. */
  detail: Detail
  /** Why its latest diagnosis is what it is; null before a diagnosis. */
  explanation: IncidentExplanation | null
  timeline: IncidentTimeline
  mails: { mails: IncidentMail[]; more: boolean }
  earlier: Occurrence[]
  /** The timeline shows the events after this position (a later page), or from the first. */
  eventsAfter: EventPage['after'] | undefined
}

export interface IncidentSection {
  id: string
  title: string
  model: object
}

/** How many notifications the timeline shows, mails the report section, occurrences the last section. */
export const incidentPageBounds = { timelineEvents: 100, mails: 5, occurrences: 20 }

export async function loadIncidentContext(
  reads: { incidents: IncidentsReader; console: ConsoleReads },
  id: string,
  eventsAfter?: EventPage['after'],
): Promise<IncidentContext | undefined> {
  const detail = await reads.incidents.get(id, { limit: 1 })
  if (!detail) return undefined
  const [explanation, timeline, mails, earlier] = await Promise.all([
    reads.incidents.explanation(id),
    reads.incidents.timeline(id, {
      limit: incidentPageBounds.timelineEvents,
      ...(eventsAfter ? { after: eventsAfter } : {}),
    }),
    reads.console.mails(id, incidentPageBounds.mails),
    reads.console.earlierOccurrences(id, incidentPageBounds.occurrences),
  ])
  // Retention may remove it between the reads.
  if (!timeline || explanation === undefined) return undefined
  return { detail, explanation, timeline, mails, earlier, eventsAfter }
}

type Alert = { labels?: Record<string, string>; annotations?: Record<string, string>; generatorURL?: string }
const pairs = (record: Record<string, string> | undefined) =>
  Object.entries(record ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => ({ name, value }))

function labels({ detail }: IncidentContext): IncidentSection {
  const alert = (detail.events[0]?.alert ?? {}) as Alert
  return {
    id: 'labels',
    title: 'Alert labels',
    model: {
      labels: pairs(alert.labels),
      annotations: pairs(alert.annotations),
      fingerprint: detail.fingerprint,
    },
  }
}

interface Finding {
  branch: string
  ruleName: string
  category: string
  classification: string
  confidence: string | null
  assessment?: string
  origin?: string
  basis?: string | null
  corroboratedBy?: string[]
}

/** What the detail left out of the stored diagnosis (store/incident-detail-bounds.ts). */
const omitted = (detail: Detail) => (detail.diagnosis?.omitted ?? {}) as { matches?: number; excerpts?: number }

function diagnosis({ detail }: IncidentContext): IncidentSection {
  const stored = detail.diagnosis
  const primary = (stored?.primary ?? null) as Finding | null
  const matches = ((stored?.matches ?? []) as Finding[]).slice(1)
  return {
    id: 'diagnosis',
    title: 'Diagnosis',
    model: {
      diagnosed: primary !== null,
      primary: primary && {
        branch: primary.branch,
        ruleName: primary.ruleName,
        category: primary.category,
        classification: primary.classification,
        confidence: primary.confidence ?? null,
        assessment: primary.assessment ?? null,
        origin: primary.origin ?? null,
        basis: primary.basis ?? null,
        corroboratedBy: primary.corroboratedBy ?? [],
      },
      others: matches.map((m) => ({
        branch: m.branch,
        ruleName: m.ruleName,
        classification: m.classification,
        confidence: m.confidence ?? null,
      })),
      lifecycle: stored?.lifecycle ?? null,
      omittedMatches: omitted(detail).matches ?? 0,
    },
  }
}

/** Each rule that matched or almost matched, its conditions as evaluated, and the ranking (docs/design.md, "Why this branch"). */
function why({ explanation }: IncidentContext): IncidentSection {
  const explained = explanation?.explanation ?? null
  const rules = explained?.rules ?? []
  const matched = rules.filter((rule) => rule.outcome === 'matched')
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KiB`
  const bundle = explanation?.evidence ?? null
  return {
    id: 'why',
    title: 'Why this branch',
    model: {
      diagnosed: explanation !== null,
      explained: explained !== null,
      diagnosedAt: shownTime(explanation?.diagnosedAt ?? null),
      primary: matched[0] ? { branch: matched[0].branch, ruleName: matched[0].ruleName } : null,
      matched: matched.map((rule, i) => ruleView(rule, i === 0)),
      almost: rules.filter((rule) => rule.outcome === 'almost_matched').map((rule) => ruleView(rule)),
      ranking: (explained?.ranking ?? []).map(rankingView),
      omitted: explained?.omitted ?? { matched: 0, almostMatched: 0, ranking: 0 },
      bundle: bundle && { stored: kib(bundle.storedBytes), raw: kib(bundle.rawBytes), truncated: bundle.truncated },
    },
  }
}

function timeline({ detail, timeline, eventsAfter }: IncidentContext): IncidentSection {
  const view = timelineView(timeline, detail.startsAt, eventsAfter !== undefined)
  return { id: 'timeline', title: 'Timeline', model: { ...view, pageSize: incidentPageBounds.timelineEvents } }
}

type Excerpt = { branch: string; file: string; lines: Array<{ number: string; text: string; match: boolean }> }
type SourceState = { error?: string } | null | undefined

function evidence({ detail }: IncidentContext): IncidentSection {
  const excerpts = (detail.diagnosis?.excerpts ?? []) as Excerpt[]
  const summary = detail.evidence as {
    logs?: Array<{ file: string; lines: number; bytes: number; error?: string }>
    metrics?: (SourceState & { status?: string }) | null
    probe?: (SourceState & { outcome?: string }) | null
    spool?: (SourceState & { records?: unknown[] }) | null
  } | null
  const source = (name: string, state: SourceState, answered: string) => ({
    name,
    state: state ? (state.error ? `unavailable: ${state.error}` : answered) : 'not configured for this instance',
  })
  return {
    id: 'evidence',
    title: 'Evidence',
    model: {
      excerpts: excerpts.map((e) => ({
        branch: e.branch,
        file: e.file,
        // The file's name and the line's number in it; the caption has the whole path.
        lines: e.lines.map((line) => ({
          where: `${basename(e.file)}:${line.number}`,
          text: line.text,
          match: line.match,
        })),
      })),
      omittedExcerpts: omitted(detail).excerpts ?? 0,
      logs: (summary?.logs ?? []).map((file) => ({
        file: file.file,
        lines: file.lines,
        bytes: file.bytes,
        error: file.error ?? null,
      })),
      sources: summary
        ? [
            source('Metrics', summary.metrics, summary.metrics?.status ?? 'read'),
            source('Health probe', summary.probe, summary.probe?.outcome ?? 'answered'),
            source('Container events', summary.spool, `${summary.spool?.records?.length ?? 0} records`),
          ]
        : [],
      gathered: summary !== null,
    },
  }
}

function report({ mails }: IncidentContext): IncidentSection {
  return {
    id: 'report',
    title: 'Report as mailed',
    model: {
      mails: mails.mails.map((mail, index) => ({
        ...mail,
        open: index === 0,
        createdAt: shownTime(mail.createdAt),
        sentAt: shownTime(mail.sentAt),
      })),
      more: mails.more,
    },
  }
}

function occurrences({ earlier }: IncidentContext): IncidentSection {
  return {
    id: 'occurrences',
    title: 'Earlier occurrences of this alert',
    model: {
      occurrences: earlier.map((o) => ({
        href: `/console/incidents/${encodeURIComponent(o.id)}`,
        status: o.status,
        startsAt: shownTime(o.startsAt),
        endedAt: shownTime(o.endedAt),
        branch: o.branch,
        ruleName: o.ruleName,
        classification: o.classification,
        confidence: o.confidence,
      })),
      bounded: earlier.length === incidentPageBounds.occurrences,
    },
  }
}

/** The sections of the incident page, in order; a builder answers null to leave its section out. */
export const incidentSections: Array<(context: IncidentContext) => IncidentSection | null> = [
  labels,
  diagnosis,
  why,
  timeline,
  evidence,
  report,
  occurrences,
]
