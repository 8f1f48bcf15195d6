import { readRulepack } from '../rules/rule-input.js'
import { apiFailure, type ClientOptions, call } from './client.js'
import { type Output, printable, table } from './output.js'

/** A replay reads up to 5,000 stored events: minutes on a busy host, never the default 30 s. */
const replayTimeoutMs = 10 * 60_000

type Outcome = { branch: string; ruleName: string; classification: string; confidence: string | null }
const words = (o: Outcome) => `${o.branch} ${o.ruleName} (${o.classification}${o.confidence ? `/${o.confidence}` : ''})`

/**
 * `appserver-diag rules replay FILE [--last N]`: what the rules of FILE would change on the
 * last N diagnosed incidents, through POST /api/v1/rules/replay (docs/api.md, "Replay a
 * candidate rule"). Nothing is registered. Exit 0 with the diff, 1 when the service refused.
 */
export async function replayRules(
  client: ClientOptions,
  file: string,
  last: string | undefined,
  output: Output,
  json: boolean,
): Promise<number> {
  const rules = readRulepack(file)
  const query = last === undefined ? '' : `?last=${encodeURIComponent(last)}`
  const body = rules.length === 1 ? rules[0] : rules
  const answer = await call(client, 'POST', `/api/v1/rules/replay${query}`, body, replayTimeoutMs)
  if (answer.status !== 200) {
    output.err(apiFailure(answer))
    return 1
  }
  const result = answer.body
  if (json) {
    output.out(JSON.stringify(result, null, 2))
    return 0
  }
  const print = output.out
  print(`replayed on ${result.evaluated} of the last ${result.requested} diagnosed events (${result.durationMs} ms)`)
  for (const rule of result.candidates)
    print(`${rule.branch} ${printable(rule.ruleName)}: matched ${rule.matches} events`)
  print(
    `${result.changed.length + result.omitted.changed} would change, ${result.added.length + result.omitted.added} would only get another finding, ${result.unchanged} unchanged`,
  )
  if (result.changed.length > 0) {
    print('would change:')
    const rows = result.changed.map(
      (c: { incidentId: string; alertname: string; instance: string; before: Outcome; after: Outcome }) => [
        c.incidentId,
        printable(c.alertname, 60),
        printable(c.instance, 40),
        `${words(c.before)} -> ${words(c.after)}`,
      ],
    )
    for (const line of table([['incident', 'alertname', 'instance', 'before -> after'], ...rows])) print(`  ${line}`)
  }
  const cost = result.cost
  print(
    `cost: ${cost.candidatesMicros.mean} us of CPU per event (at most ${cost.candidatesMicros.max} us), the catalogue ${cost.catalogueMicros.mean} us`,
  )
  if (result.truncatedBundles > 0) print(`${result.truncatedBundles} events had their stored excerpt cut to 512 KiB`)
  return 0
}
