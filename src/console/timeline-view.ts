import { encodeCursor } from '../http/routes/incidents.js'
import type { IncidentTimeline, TimelineEntry } from '../store/incident-timeline.js'
import { words } from './explanation-view.js'
import { type ShownTime, shownDuration, shownTime } from './time-words.js'

// The incident's timeline as the console shows it (docs/design.md, "An incident's timeline"):
// the alert's start, then each step the store records (incident-timeline.ts) in time order:
// each notification's receipt (which token, which receiver), the duplicates absorbed from
// each sender, queued, claimed, each evidence source with its duration, diagnosed, mailed,
// and the occurrence's end. Each step says when, how long after the first receipt, and how
// long it took from the step it waited for.

export interface TimelineStep {
  at: ShownTime
  what: string
  detail: string | null
  sinceOpened: string
  took: string | null
}

const ends: Record<string, string> = {
  resolved: 'The alert ended (the endsAt of its resolution)',
  superseded: 'The occurrence ended: a newer one of the same alert started',
  expired: 'The occurrence expired: last heard then, never resolved',
}

const sources: Record<string, string> = {
  logs: 'the logs (read, redacted, scanned)',
  metrics: 'the metrics',
  probe: 'the health probe',
  spool: 'the container events (spool)',
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`
const duration = (ms: number | null) => (ms === null ? null : shownDuration(ms))

/** What a step says, and how long it took from the step it waited for. */
function described(entry: TimelineEntry, receipts: Map<string, number>): Omit<TimelineStep, 'at' | 'sinceOpened'> {
  const sinceReceipt = (eventId: string) => {
    const received = receipts.get(eventId)
    return received === undefined ? null : shownDuration(Date.parse(entry.at) - received)
  }
  switch (entry.kind) {
    case 'received':
      return {
        what: `${entry.status === 'firing' ? 'Firing' : 'Resolved'} notification received (${words(entry.transition)})`,
        detail: `token ${entry.principal}, receiver ${entry.receiver}`,
        took: null,
      }
    case 'duplicates': {
      const last = shownTime(entry.lastAt)
      return {
        what: `${plural(entry.count, 'duplicate')} absorbed from ${entry.principal}`,
        detail: `receiver ${entry.receiver}; answered without a write, the last at ${last?.text ?? entry.lastAt}`,
        took: null,
      }
    }
    case 'queued':
      return { what: 'Queued for the worker', detail: null, took: sinceReceipt(entry.eventId) }
    case 'claimed':
      return {
        what: 'Claimed by the worker',
        detail: `${plural(entry.attempts, 'attempt')}; the queue item is ${entry.status} now`,
        took: duration(entry.waitedMs),
      }
    case 'evidence':
      return {
        what: `Evidence from ${sources[entry.source] ?? entry.source}: ${words(entry.outcome)}`,
        detail: entry.detail ?? null,
        took: duration(entry.durationMs),
      }
    case 'diagnosed':
      return {
        what: entry.branch
          ? `Diagnosed: ${entry.branch}, ${words(entry.classification)}${entry.confidence ? `, ${entry.confidence} confidence` : ''}`
          : 'Diagnosed',
        detail: 'from the claim: evidence gathered, rules evaluated, report rendered',
        took: duration(entry.durationMs),
      }
    case 'recovery_prepared':
      return { what: 'Recovery report prepared', detail: null, took: sinceReceipt(entry.eventId) }
    case 'mailed': {
      const what =
        entry.status === 'sent'
          ? `The ${entry.mail} mail was sent`
          : entry.status === 'failed'
            ? `The ${entry.mail} mail could not be sent`
            : `The ${entry.mail} mail is waiting to be sent`
      const error = entry.lastError ? `; last error: ${entry.lastError}` : ''
      return { what, detail: `${plural(entry.attempts, 'attempt')}${error}`, took: duration(entry.durationMs) }
    }
    case 'ended': {
      const recorded = shownTime(entry.recordedAt)
      return {
        what: ends[entry.status] ?? 'The occurrence ended',
        detail: recorded ? `the service recorded it at ${recorded.text}` : null,
        took: null,
      }
    }
  }
}

/**
 * One page of the timeline: `later` when it continues an earlier page (then the alert's own
 * start, which precedes the first receipt, is not repeated); `next` is the cursor of the page after.
 */
export function timelineView(timeline: IncidentTimeline, startsAt: string | null, later = false) {
  const opened = Date.parse(timeline.openedAt)
  const receipts = new Map<string, number>()
  for (const entry of timeline.entries) {
    if (entry.kind === 'received') receipts.set(entry.eventId, Date.parse(entry.at))
  }
  const steps: TimelineStep[] = timeline.entries.map((entry) => ({
    at: shownTime(entry.at) as ShownTime,
    sinceOpened: shownDuration(entry.sinceOpenedMs),
    ...described(entry, receipts),
  }))
  const started = later ? null : shownTime(startsAt)
  // The alert's start comes before the first receipt (or, with a slow sender, after it).
  if (started) {
    const step = {
      at: started,
      what: 'The alert started (its startsAt)',
      detail: null,
      sinceOpened: shownDuration(Date.parse(started.iso) - opened),
      took: null,
    }
    const at = Date.parse(started.iso)
    const index = timeline.entries.findIndex((entry) => Date.parse(entry.at) > at)
    steps.splice(index < 0 ? steps.length : index, 0, step)
  }
  const next = timeline.nextEvents ? encodeCursor(timeline.nextEvents.receivedAt, timeline.nextEvents.id) : null
  return { steps, later, next }
}
