import type { RankingExplanation, RuleExplanation } from '../explanation.js'
import type { Classification, Confidence, CustomRule } from '../types.js'

// What a replay takes and gives (docs/api.md, "Replay a candidate rule"): candidate rules
// evaluated with the current catalogue on the stored evidence of the last N diagnosed
// events, on engines of its own, and the outcomes that would change.

/** The last N diagnosed events a replay reads: 1,000 unless the caller says, at most 5,000. */
export const replayBounds = { defaultLast: 1000, maxLast: 5000, maxRules: 50, listed: 200 }

/** A stored bundle as a replay reads it (store/evidence-bundles.ts's StoredBundle satisfies it). */
export interface ReplayBundle {
  eventId: string
  incidentId: string
  createdAt: number
  bytes: Buffer
}

/** Where the bundles come from: the newest first, at most `limit` (the store's EvidenceBundleStore). */
export interface BundleSource {
  newest(limit: number): AsyncIterable<ReplayBundle>
}

/** The catalogue a replay starts from: built-ins as loaded and the custom rules registered so far. */
export interface ReplayCatalogue {
  custom: readonly CustomRule[]
}

/** A finding's headline, before or after. */
export interface Outcome {
  branch: string
  ruleName: string
  classification: Classification
  confidence: Confidence
}

interface ReplayedEvent {
  eventId: string
  incidentId: string
  alertname: string
  instance: string
  /** When the event was diagnosed (ISO 8601). */
  diagnosedAt: string
}

/** An event whose primary finding (branch, classification or confidence) would change. */
export interface ReplayChange extends ReplayedEvent {
  /** The primary finding with the current catalogue, and with the candidates added. */
  before: Outcome
  after: Outcome
  /** The new primary's rule and its conditions as evaluated: what decided. */
  decidedBy: RuleExplanation | null
  /**
   * Why the new primary outranks the old one, when the old one still matched; null when the
   * old primary was the fallback TD-07 or TD-08, which applies only when no rule matches.
   */
  outranked: RankingExplanation | null
}

/** An event where a candidate would only add a finding: the primary stays. */
export interface ReplayAddition extends ReplayedEvent {
  primary: Outcome
  /** The candidates' findings on it, in rank order. */
  added: Outcome[]
}

export interface ReplayResult {
  /** The candidates as they would be registered (provisional ids), each with the events it matched. */
  candidates: Array<{ id: number; branch: string; ruleName: string; matches: number }>
  /** N asked for, and the bundles there were to read (fewer when fewer events were diagnosed). */
  requested: number
  evaluated: number
  changed: ReplayChange[]
  added: ReplayAddition[]
  unchanged: number
  /** Events where any candidate matched. */
  matches: number
  /** Evaluated bundles the 512 KiB bound had cut: a candidate's pattern saw only the lines kept. */
  truncatedBundles: number
  /** Bundles that could not be read (corrupt, or of another format); counted, never fatal. */
  unreadable: number
  /** How many changed and added events the lists left out (`replayBounds.listed` each). */
  omitted: { changed: number; added: number }
  /** CPU time per event evaluated, in microseconds: what the candidates add, and what the current catalogue costs. */
  cost: { events: number; candidatesMicros: { mean: number; max: number }; catalogueMicros: { mean: number } }
}
