import type { ProbeEvidence } from '../evidence/probe.js'
import type { CorroboratingFact } from '../rules/corroboration-results.js'

// The facts that corroborated a finding, in words (the conditions: engine-rules.ts, the
// rules' `corroboratedBy` in builtin-rules/*.json, builtin-rules/corroboration.json).

const times = (n: unknown, one: string, many: string) => (Number(n) === 1 ? `1 ${one}` : `${String(n)} ${many}`)

function probeWords(outcome: unknown, probe: ProbeEvidence | null): string {
  switch (outcome) {
    case 'timeout':
      return 'the health probe timed out'
    case 'refused':
      return 'the health probe was refused'
    case 'http_error':
      return `the health probe answered ${probe?.statusCode ? `HTTP ${probe.statusCode}` : 'with an HTTP error'}`
    default:
      return 'the health probe failed'
  }
}

const operatorWords: Record<string, string> = {
  equal: 'equal to',
  notEqual: 'not equal to',
  in: 'one of',
  notIn: 'none of',
  greaterThan: 'over',
  greaterThanInclusive: 'at least',
  lessThan: 'under',
  lessThanInclusive: 'at most',
}

/** A condition no sentence below knows: its fact, test and value, and what the fact was. */
function generic(fact: CorroboratingFact): string {
  const name = `${fact.fact}${fact.path ? ` ${fact.path.slice(2)}` : ''}`
  const was = fact.actual === undefined ? '' : ` (it was ${String(fact.actual)})`
  return `${name} ${operatorWords[fact.operator] ?? fact.operator} ${JSON.stringify(fact.value)}${was}`
}

/** One corroborating fact as a phrase: "the health probe timed out". */
export function corroborationWords(fact: CorroboratingFact, probe: ProbeEvidence | null): string {
  switch (`${fact.fact} ${fact.path ?? ''}`.trim()) {
    case 'log':
      return 'its signature on more than one log line'
    case 'probe $.outcome':
      return probeWords(fact.actual, probe)
    case 'container $.oomKilled':
      return 'the container was OOM-killed (a container event)'
    case 'container $.crashExits':
      return `${times(fact.actual, 'container crash', 'container crashes')} (exit code 134 or 139)`
    case 'container $.errorExits':
      return times(fact.actual, 'container exit with an error code', 'container exits with an error code')
    case 'metrics $.heapUsedRatio':
      return `the heap ${Math.round(Number(fact.actual) * 100)} % full (metrics)`
    case 'exceptionMeaningsRecurring':
      return `exceptions meaning ${String(fact.value)} on more than one record (the exception reader)`
    case 'exceptionClassesRecurring':
      return `${String(fact.value)} (or a subclass) thrown more than once (the exception reader)`
    case 'gc $.fullCollectionsHighOccupancy':
      return `${times(fact.actual, 'full collection', 'full collections')} that left the heap 90 % full or more (GC log)`
    default:
      return generic(fact)
  }
}
