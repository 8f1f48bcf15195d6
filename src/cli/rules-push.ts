import { readRulepack } from '../rules/rule-input.js'
import { type ClientOptions, call, errorMessage } from './client.js'
import { type Output, sameRule } from './output.js'
import { ruleSchemaProblems } from './rule-schema-check.js'

export const describeRule = (rule: { branch?: unknown; ruleName?: unknown } | null, index: number) =>
  `${String(rule?.branch ?? `rule #${index + 1}`)} ${String(rule?.ruleName ?? '')}`.trim()

/** What became of one rule of a file, as `--json` prints it. */
export interface RuleOutcome {
  rule: string
  outcome: 'registered' | 'identical' | 'valid' | 'invalid' | 'conflict' | 'failed'
  /** What the schema refuses in an invalid rule, in words: one sentence per field. */
  problems?: string[]
  id?: number | string
  conflictsWith?: { id: number | string; branch: string; ruleName: string }
  status?: number
  error?: string
  message?: string
}

/**
 * Sends one rule (a dry run when `dryRun`): registered or valid; identical to a registered
 * rule, which is no change; or a conflict with a registered rule that says something else,
 * which the caller must see as a failure (the API's 409 names that rule).
 */
export async function sendRule(
  client: ClientOptions,
  body: unknown,
  name: string,
  dryRun: boolean,
): Promise<RuleOutcome> {
  const { status, body: answer } = await call(client, 'POST', `/api/v1/rules${dryRun ? '?dryRun=true' : ''}`, body)
  if (status === 201) return { rule: name, outcome: 'registered', id: answer.id }
  if (status === 200) return { rule: name, outcome: 'valid' }
  const conflictsWith = answer?.conflictingRule
  if (status === 409 && conflictsWith) {
    const existing = await call(client, 'GET', `/api/v1/rules/${encodeURIComponent(String(conflictsWith.id))}`)
    if (existing.status === 200 && sameRule(body as Record<string, unknown>, existing.body)) {
      return { rule: name, outcome: 'identical', id: conflictsWith.id }
    }
    return { rule: name, outcome: 'conflict', conflictsWith, status, error: answer.error, message: answer.message }
  }
  return { rule: name, outcome: 'failed', status, error: answer?.error ?? '', message: errorMessage(answer) }
}

/** One line for an outcome; conflicts and failures go to stderr. */
export function report(result: RuleOutcome, output: Output): void {
  const other = result.conflictsWith
  switch (result.outcome) {
    case 'registered':
      output.out(`${result.rule}: registered as id ${result.id}`)
      break
    case 'identical':
      output.out(`${result.rule}: already registered as id ${result.id} with the same content, skipped`)
      break
    case 'valid':
      output.out(`${result.rule}: the service would accept it`)
      break
    case 'invalid':
      output.err(invalidRule(result.rule, result.problems ?? []))
      break
    case 'conflict':
      output.err(
        `${result.rule}: CONFLICT with rule ${other?.id} (${other?.branch} ${other?.ruleName}), which says something else: ${result.message}`,
      )
      break
    case 'failed':
      output.err(`${result.rule}: FAILED ${result.status} ${result.error}: ${result.message}`)
      break
  }
}

/** A rule the schema refuses, and why in words, one field a line. */
export const invalidRule = (rule: string, problems: readonly string[]) =>
  [`${rule}: INVALID, not sent:`, ...problems.map((problem) => `  ${problem}`)].join('\n')

/**
 * `appserver-diag rules push FILE`: one POST per rule (the API takes one rule a request); a
 * rule the schema refuses is not sent, and the words say why. A rule
 * identical to a registered one is skipped; any other conflict, like any other failure,
 * makes the exit code 1 and says which registered rule it conflicts with.
 */
export async function pushRules(client: ClientOptions, file: string, output: Output, json: boolean): Promise<number> {
  const rules = readRulepack(file)
  const results: RuleOutcome[] = []
  for (const [index, rule] of rules.entries()) {
    const name = describeRule(rule as Record<string, unknown>, index)
    // Checked here against the API's own schema, so the refusal comes in words.
    const problems = ruleSchemaProblems(rule)
    const result: RuleOutcome =
      problems.length > 0 ? { rule: name, outcome: 'invalid', problems } : await sendRule(client, rule, name, false)
    results.push(result)
    if (!json) report(result, output)
  }
  const registered = results.filter((r) => r.outcome === 'registered').length
  const identical = results.filter((r) => r.outcome === 'identical').length
  const refused = results.length - registered - identical
  if (json) output.out(JSON.stringify({ results, registered, identical, refused }, null, 2))
  else output.out(`${registered} registered, ${identical} already registered as they are, ${refused} refused`)
  return refused > 0 ? 1 : 0
}
