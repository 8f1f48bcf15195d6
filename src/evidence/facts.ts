import type { EvidenceFacts } from '../rules/types.js'
import { excerptOfText } from '../text/excerpt.js'
import { summarizeGc } from './gc-log.js'

export interface AlertIdentity {
  alertname: string
  instance: string
  severity: string
}

/** Facts with nothing collected: the starting point the collectors fill in. */
export function emptyFacts(alert: AlertIdentity): EvidenceFacts {
  return {
    available: false,
    alert,
    logText: '',
    gc: { fullCollections: 0, fullCollectionsHighOccupancy: 0, maxPauseMs: 0 },
    container: { events: 0, oomKilled: false, crashExits: 0, errorExits: 0, exitCodes: [] },
    metrics: { heapUsedRatio: null, threads: null },
    probe: { outcome: 'unavailable', statusCode: null, latencyMs: null },
  }
}

/** Facts from a (redacted) log excerpt alone, as `diag rules test` and the log collector use. */
export function withLogExcerpt(facts: EvidenceFacts, logText: string): EvidenceFacts {
  if (logText.length === 0) return facts
  return { ...facts, available: true, logText, gc: summarizeGc(excerptOfText(logText)) }
}
