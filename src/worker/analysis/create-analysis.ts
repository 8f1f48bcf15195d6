import type { RedactionOptions } from '../../evidence/redaction-options.js'
import type { Catalogue } from '../../rules/catalogue.js'
import { type Analysis, AnalysisPool, type IdleRetirement, threadScript } from './analysis-pool.js'
import { InProcessAnalysis } from './in-process-analysis.js'

/**
 * The analysis of the service. `catalogue` is the live catalogue: on the main thread its
 * built-ins, already loaded, are reused; a thread loads its own (it shares no memory).
 */
export function createAnalysis(
  threads: number,
  catalogue: () => Catalogue,
  log: { error(obj: object, msg: string): void },
  bound: { timeoutMs: number; onTimeout: (bound: 'cpu' | 'wall') => void },
  redaction: RedactionOptions = {},
  idle: IdleRetirement = { idleMs: 0 },
): Analysis {
  if (threads === 0) {
    const { custom, builtins, builtinVersions } = catalogue()
    return new InProcessAnalysis(custom, { rules: builtins, versions: builtinVersions }, redaction)
  }
  const { timeoutMs, onTimeout } = bound
  return new AnalysisPool(
    threads,
    () => catalogue().custom,
    log,
    threadScript,
    timeoutMs,
    onTimeout,
    undefined,
    redaction,
    idle,
  )
}
