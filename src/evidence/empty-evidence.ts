import type { Evidence } from '../rules/types.js'
import { excerptOfText } from '../text/excerpt.js'
import { summarizeGc } from './gc-log.js'

export interface AlertIdentity {
  alertname: string
  instance: string
  severity: string
}

/** Evidence with nothing collected: the starting point the collectors fill in. */
export function emptyEvidence(alert: AlertIdentity): Evidence {
  return {
    available: false,
    alert,
    log: { text: '' },
    gc: { fullCollections: 0, fullCollectionsHighOccupancy: 0, maxPauseMs: 0 },
    container: { events: 0, oomKilled: false, crashExits: 0, errorExits: 0, exitCodes: [] },
    metrics: { heapUsedRatio: null, threads: null },
    probe: { outcome: 'unavailable', statusCode: null, latencyMs: null },
  }
}

/** Evidence from a (redacted) log excerpt alone, as `appserver-diag rules test` and tests use it. */
export function withLogText(evidence: Evidence, text: string): Evidence {
  if (text.length === 0) return evidence
  return { ...evidence, available: true, log: { text }, gc: summarizeGc(excerptOfText(text)) }
}
