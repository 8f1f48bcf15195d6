import type { IncidentTimeline, TimelineEvent } from '../store/console-port.js'
import { type ShownTime, shownDuration, shownTime } from './time-words.js'

// The incident's timeline from what the store records (docs/design.md, "The web console"):
// the alert's start, each notification's receipt (which token, which receiver), its queue
// item, the result the worker committed, its mail and when it was sent, and the ends of the
// occurrence. Each step says when, how long after the first receipt, and how long it took
// from the step it follows.

export interface TimelineStep {
  at: ShownTime
  what: string
  detail: string | null
  sinceOpened: string
  took: string | null
}

interface Step {
  at: number
  what: string
  detail: string | null
  /** The step this one waited for, for its duration. */
  after: number | null
}

const resultWords: Record<string, string> = {
  diagnosis: 'Diagnosed: evidence gathered, rules evaluated, report rendered',
  recovery: 'Recovery report rendered',
}

function eventSteps(event: TimelineEvent): Step[] {
  const kind = event.status === 'firing' ? 'Firing' : 'Resolved'
  const steps: Step[] = [
    {
      at: event.receivedAt,
      what: `${kind} notification received${event.transition ? ` (${event.transition.replaceAll('_', ' ')})` : ''}`,
      detail: `token ${event.principal}, receiver ${event.receiver}`,
      after: null,
    },
  ]
  const { queue, result, mail } = event
  if (result) {
    steps.push({
      at: result.at,
      what: resultWords[result.kind] ?? `Result: ${result.kind}`,
      detail: null,
      after: event.receivedAt,
    })
  } else if (queue) {
    const attempts = `${queue.attempts} attempt${queue.attempts === 1 ? '' : 's'}`
    steps.push({
      at: queue.updatedAt,
      what: `In the work queue: ${queue.status}`,
      detail: attempts,
      after: event.receivedAt,
    })
  }
  if (mail) {
    const attempts = `${mail.attempts} attempt${mail.attempts === 1 ? '' : 's'}`
    steps.push(
      mail.sentAt === null
        ? { at: mail.createdAt, what: `The ${mail.kind} mail is ${mail.status}`, detail: attempts, after: null }
        : {
            at: mail.sentAt,
            what: `The ${mail.kind} mail was sent`,
            detail: attempts,
            after: result?.at ?? mail.createdAt,
          },
    )
  }
  return steps
}

export function timelineView(timeline: IncidentTimeline, status: string) {
  const ends: Record<string, string> = {
    resolved: 'The alert ended (the endsAt of its resolution)',
    superseded: 'The occurrence ended: a newer one of the same alert started',
    expired: 'The occurrence expired: last heard then, never resolved',
  }
  const steps: Step[] = [
    { at: timeline.startsAt, what: 'The alert started (its startsAt)', detail: null, after: null },
    ...timeline.events.flatMap(eventSteps),
  ]
  if (timeline.endedAt !== null) {
    steps.push({
      at: timeline.endedAt,
      what: ends[status] ?? 'The occurrence ended',
      detail: null,
      after: timeline.startsAt,
    })
  }
  if (timeline.closedAt !== null) {
    steps.push({ at: timeline.closedAt, what: 'The service recorded the end', detail: null, after: null })
  }
  if (timeline.lastHeardAt !== null && status === 'open') {
    steps.push({ at: timeline.lastHeardAt, what: 'Last heard (repeats included)', detail: null, after: null })
  }
  // Stable: steps of one instant keep their order (a receipt before what it caused).
  const ordered = steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => a.step.at - b.step.at || a.index - b.index)
  return {
    steps: ordered.map(
      ({ step }): TimelineStep => ({
        at: shownTime(step.at) as ShownTime,
        what: step.what,
        detail: step.detail,
        sinceOpened: shownDuration(step.at - timeline.openedAt),
        took: step.after === null ? null : shownDuration(step.at - step.after),
      }),
    ),
    more: timeline.more,
  }
}
