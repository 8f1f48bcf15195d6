import type { EvidenceTiming } from '../evidence/source-timings.js'
import { iso } from './incident-views.js'

// An incident's timeline as both adapters read it (docs/api.md, "Timeline"): what happened to
// it, from the rows that record each step: events (each stored notification, its sender and
// receiver), alert_duplicates (duplicates absorbed, by sender), queue_items (queued, last
// claimed), results (diagnosed with each evidence source's timing, or the recovery
// prepared), outbox (mailed) and the incident's own end.

interface Step {
  /** When it happened (ISO 8601, UTC). */
  at: string
  /** Milliseconds since the incident was first heard of (its `openedAt`). */
  sinceOpenedMs: number
}

/** One step, by its kind. */
export type TimelineStep =
  | {
      kind: 'received'
      eventId: string
      status: 'firing' | 'resolved'
      /** What it did to the incident (docs/design.md, "Incidents"). */
      transition: string
      /** The token's name, and the Alertmanager receiver the notification named. */
      principal: string
      receiver: string
    }
  | { kind: 'duplicates'; principal: string; receiver: string; count: number; lastAt: string }
  | { kind: 'queued'; eventId: string }
  | {
      kind: 'claimed'
      eventId: string
      /** Processing attempts so far; the time is the last claim's. */
      attempts: number
      /** From queued to this claim. */
      waitedMs: number
      /** The queue item's status now: processing, done or failed. */
      status: string
    }
  | ({ kind: 'evidence'; eventId: string } & Omit<EvidenceTiming, 'startedAt'>)
  | {
      kind: 'diagnosed'
      eventId: string
      branch: string | null
      classification: string | null
      confidence: string | null
      /** From the last claim to the committed diagnosis (evidence, analysis, rules, report). */
      durationMs: number | null
    }
  | { kind: 'recovery_prepared'; eventId: string }
  | {
      kind: 'mailed'
      eventId: string
      mail: 'diagnosis' | 'refire' | 'recovery'
      /** pending, sent or failed; `at` is when it was sent, or when it was queued while it is not. */
      status: string
      attempts: number
      /** From the mail queued (with its report) to the relay taking it. */
      durationMs: number | null
      lastError: string | null
    }
  | { kind: 'ended'; status: string; recordedAt: string | null }

export type TimelineEntry = Step & TimelineStep

export interface IncidentTimeline {
  incidentId: string
  openedAt: string
  /** In time order; ties keep the order of the steps above. */
  entries: TimelineEntry[]
  /** Where the next page of events starts; null on the last page. */
  nextEvents: { receivedAt: number; id: string } | null
}

/** The rows each adapter reads for one page of an incident's events. */
export interface TimelineRows {
  incident: {
    id: string
    opened_at: number | string
    status: string
    ended_at: number | string | null
    closed_at: number | string | null
  }
  events: Array<{
    id: string
    status: string
    transition: string
    received_at: number | string
    principal: string
    receiver: string
  }>
  queue: Array<{
    event_id: string
    created_at: number | string
    claimed_at: number | string | null
    attempts: number
    status: string
  }>
  results: Array<{
    event_id: string
    kind: string
    created_at: number | string
    timings_json: string | null
    primary_json: string | null
  }>
  outbox: Array<{
    event_id: string
    kind: string
    status: string
    attempts: number
    created_at: number | string
    sent_at: number | string | null
    last_error: string | null
  }>
  /** Only on the first page: they belong to the incident, not to an event. */
  duplicates: Array<{
    principal: string
    receiver: string
    duplicates: number
    first_at: number | string
    last_at: number | string
  }>
}

/** Duplicate rows a timeline shows, the earliest senders first. */
export const maxDuplicateRows = 50

const kindOrder = [
  'received',
  'duplicates',
  'queued',
  'claimed',
  'evidence',
  'diagnosed',
  'recovery_prepared',
  'mailed',
  'ended',
]

export function timelineView(rows: TimelineRows, more: boolean): IncidentTimeline {
  const opened = Number(rows.incident.opened_at)
  const entries: Array<{ ms: number; entry: TimelineEntry }> = []
  const add = (ms: number, entry: TimelineStep) =>
    entries.push({ ms, entry: { at: iso(ms) as string, sinceOpenedMs: ms - opened, ...entry } as TimelineEntry })
  const claims = new Map<string, number>()
  for (const e of rows.events) {
    const { id: eventId, principal, receiver, transition } = e
    add(Number(e.received_at), {
      kind: 'received',
      eventId,
      status: e.status as 'firing',
      transition,
      principal,
      receiver,
    })
  }
  for (const d of rows.duplicates) {
    const { principal, receiver } = d
    add(Number(d.first_at), {
      kind: 'duplicates',
      principal,
      receiver,
      count: Number(d.duplicates),
      lastAt: iso(Number(d.last_at)) as string,
    })
  }
  for (const q of rows.queue) {
    add(Number(q.created_at), { kind: 'queued', eventId: q.event_id })
    if (q.claimed_at === null) continue
    const claimed = Number(q.claimed_at)
    claims.set(q.event_id, claimed)
    const waitedMs = claimed - Number(q.created_at)
    add(claimed, { kind: 'claimed', eventId: q.event_id, attempts: Number(q.attempts), waitedMs, status: q.status })
  }
  for (const r of rows.results) {
    const at = Number(r.created_at)
    if (r.kind !== 'diagnosis') {
      add(at, { kind: 'recovery_prepared', eventId: r.event_id })
      continue
    }
    for (const t of JSON.parse(r.timings_json ?? '[]') as EvidenceTiming[]) {
      const { startedAt, ...timing } = t
      add(startedAt, { kind: 'evidence', eventId: r.event_id, ...timing })
    }
    const primary = JSON.parse(r.primary_json ?? 'null') as Record<string, string | null> | null
    const claimed = claims.get(r.event_id)
    add(at, {
      kind: 'diagnosed',
      eventId: r.event_id,
      branch: primary?.branch ?? null,
      classification: primary?.classification ?? null,
      confidence: primary?.confidence ?? null,
      durationMs: claimed === undefined ? null : at - claimed,
    })
  }
  for (const o of rows.outbox) {
    const queued = Number(o.created_at)
    const sent = o.sent_at === null ? null : Number(o.sent_at)
    add(sent ?? queued, {
      kind: 'mailed',
      eventId: o.event_id,
      mail: o.kind as 'diagnosis',
      status: o.status,
      attempts: Number(o.attempts),
      durationMs: sent === null ? null : sent - queued,
      lastError: o.last_error,
    })
  }
  const { incident } = rows
  if (incident.ended_at !== null && !more) {
    const recordedAt = incident.closed_at === null ? null : iso(Number(incident.closed_at))
    add(Number(incident.ended_at), { kind: 'ended', status: incident.status, recordedAt })
  }
  entries.sort((a, b) => a.ms - b.ms || kindOrder.indexOf(a.entry.kind) - kindOrder.indexOf(b.entry.kind))
  const last = rows.events.at(-1)
  return {
    incidentId: incident.id,
    openedAt: iso(opened) as string,
    entries: entries.map(({ entry }) => entry),
    nextEvents: more && last ? { receivedAt: Number(last.received_at), id: last.id } : null,
  }
}
