import type { Awaitable } from '../worker/ports.js'

// What the web console keeps and reads beyond the incidents API (docs/design.md, "The web
// console"), one port for both adapters: its sessions, and the reads of the incident page
// (its mails and earlier occurrences; its timeline and explanation are the incidents API's),
// the charts and the rules page. The statements are in console-sql.ts, written once.

/** A console session as stored: never its id, only the SHA-256 of it. */
export interface ConsoleSession {
  idHash: string
  /** The name of the token that signed in, and its scopes then. */
  principal: string
  scopes: string[]
  createdAt: number
  /** Epoch ms: the session ends when unused until then, or at `expiresAt` whatever its use. */
  idleUntil: number
  expiresAt: number
}

export interface ConsoleSessions {
  createSession(session: ConsoleSession): Awaitable<void>
  /** The session, if it has not ended by `now`. */
  findSession(idHash: string, now: number): Awaitable<ConsoleSession | undefined>
  /** Moves its idle end forward (never past its absolute end). */
  touchSession(idHash: string, idleUntil: number): Awaitable<void>
  /** Sign-out: whether there was such a session. */
  deleteSession(idHash: string): Awaitable<boolean>
  /** Housekeeping: removes the sessions ended by `now`; how many. */
  purgeSessions(now: number): Awaitable<number>
}

/** A mail of the incident as the outbox holds it: the text part is the report as mailed. */
export interface IncidentMail {
  eventId: string
  kind: string
  status: string
  subject: string
  messageId: string
  text: string
  createdAt: number
  sentAt: number | null
}

/** Another occurrence of the same alert identity, with the branch its diagnosis took. */
export interface Occurrence {
  id: string
  status: string
  startsAt: number
  openedAt: number
  endedAt: number | null
  branch: string | null
  ruleName: string | null
  classification: string | null
  confidence: string | null
}

export interface ConsoleReads {
  /** The incident's first `limit` mails in the order they were made; `more` when there are others. */
  mails(incidentId: string, limit: number): Awaitable<{ mails: IncidentMail[]; more: boolean }>
  /** Occurrences of the same identity that started before this one, newest first. */
  earlierOccurrences(incidentId: string, limit: number): Awaitable<Occurrence[]>
  /** Incidents opened in [since, until) by UTC day and diagnosis branch ('' before a diagnosis). */
  incidentsPerDay(since: number, until: number): Awaitable<Array<{ day: number; branch: string; count: number }>>
  /**
   * Diagnosis mails sent for notifications received in [since, until), counted by how long
   * after the receipt each went out: bucket i holds delays below `reportDelayBounds[i]`, the
   * last bucket those beyond.
   */
  reportDelays(since: number, until: number): Awaitable<Array<{ bucket: number; count: number }>>
  /** Per branch, the incidents it decided (their primary finding) opened since `week` and since `month`. */
  ruleDecisions(week: number, month: number): Awaitable<Array<{ branch: string; week: number; month: number }>>
}

export type ConsoleStore = ConsoleSessions & ConsoleReads

/** Upper bounds (ms, exclusive) of the report delay buckets; one bucket more holds the rest. */
export const reportDelayBounds = [5_000, 15_000, 60_000, 300_000, 900_000, 3_600_000] as const
