import { logFact } from './engine-rules.js'
import { exceptionsFact } from './exception-conditions.js'
import type { Evidence } from './types.js'

/**
 * Evidence as the engine's facts, in this one place (docs/design.md, "Rules"). The log
 * comes as its text (the engine's `log` and `exceptions` facts read it) or as what the
 * scanner and the exception reader already found in it; either way the rules read `log`
 * and the exception facts derived from `exceptions`.
 */
export function engineFacts(evidence: Evidence): Record<string, unknown> {
  return {
    evidence: { available: evidence.available },
    alert: evidence.alert,
    gc: evidence.gc,
    container: evidence.container,
    metrics: evidence.metrics,
    probe: evidence.probe,
    ...('matches' in evidence.log
      ? { [logFact]: evidence.log.matches, [exceptionsFact]: evidence.log.exceptions }
      : { logText: evidence.log.text }),
  }
}
