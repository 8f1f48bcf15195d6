import { emptyEvidence, withLogText } from '../evidence/empty-evidence.js'
import { readLogTail } from '../evidence/log-tail.js'
import { redactBytes } from '../evidence/redact.js'
import { loadBuiltinRules } from '../rules/builtin-loader.js'
import { DiagnosisEngine } from '../rules/diagnosis-engine.js'
import { PatternSafety } from '../rules/pattern-safety.js'
import { RuleRejectedError } from '../rules/rule-errors.js'
import { offlineCustomRule, readRulepack } from '../rules/rule-input.js'
import { seedRulepackFile } from '../rules/seed.js'
import type { CustomRule } from '../rules/types.js'
import { parsePattern } from '../text/pattern.js'
import { apiFailure, type ClientOptions, call } from './client.js'
import type { Output } from './output.js'
import { ruleSchemaProblems } from './rule-schema-check.js'
import { describeRule, invalidRule, type RuleOutcome, report, sendRule } from './rules-push.js'

/** `appserver-diag rules list [--category C]`. */
export async function listRules(
  client: ClientOptions,
  category: string | undefined,
  output: Output,
  json: boolean,
): Promise<number> {
  // The list comes in pages (docs/api.md, "List the catalogue"): follow them to the end.
  const params = new URLSearchParams({ limit: '200', ...(category ? { category } : {}) })
  let body: Awaited<ReturnType<typeof call>>['body'] = null
  const rules: unknown[] = []
  do {
    const answer = await call(client, 'GET', `/api/v1/rules?${params}`)
    if (answer.status !== 200) {
      output.err(apiFailure(answer))
      return 1
    }
    body = answer.body
    rules.push(...body.rules)
    if (body.nextCursor) params.set('cursor', body.nextCursor)
  } while (body.nextCursor)
  body = { ...body, rules, nextCursor: null }
  if (json) {
    output.out(JSON.stringify(body, null, 2))
    return 0
  }
  const print = output.out
  print(
    `${'branch'.padEnd(8)}${'id'.padEnd(15)}${'category'.padEnd(24)}${'classification'.padEnd(17)}${'confidence'.padEnd(12)}ruleName`,
  )
  for (const rule of body.rules) {
    print(
      `${String(rule.branch).padEnd(8)}${String(rule.id).padEnd(15)}${String(rule.category).padEnd(24)}${String(rule.classification).padEnd(17)}${String(rule.confidence ?? '-').padEnd(12)}${rule.ruleName}`,
    )
  }
  print(`${body.total} rules`)
  return 0
}

/**
 * `appserver-diag rules test FILE --log LOGFILE`: evaluates a rulepack offline, with the engine of
 * the service, over the tail of a local log file (the same bounds as the worker), next
 * to the built-in and seed rules. Rules can never be deleted once registered: try first.
 */
export async function testRules(
  file: string,
  options: { log: string; alertname: string; expectMatch: boolean; json: boolean },
  server: () => ClientOptions,
  output: Output,
): Promise<number> {
  const lines: string[] = []
  const print = (line: string) => (options.json ? lines.push(line) : output.out(line))
  const safety = new PatternSafety()
  const { rules: builtins, versions } = loadBuiltinRules()
  const createdAt = new Date().toISOString()
  const toRule = (body: unknown, id: number, createdBy: string) => offlineCustomRule(body, id, createdBy, createdAt)
  const seed = readRulepack(seedRulepackFile).map((body, i) => toRule(body, i + 1, 'seed'))
  const candidates: CustomRule[] = []
  const bodies = new Map<CustomRule, unknown>()
  const invalidRules: string[] = []
  let invalid = 0
  for (const [index, body] of readRulepack(file).entries()) {
    const name = describeRule(body as Record<string, unknown>, index)
    const problems = ruleSchemaProblems(body)
    if (problems.length > 0) {
      invalid++
      const words = invalidRule(name, problems)
      invalidRules.push(words)
      output.err(words)
      continue
    }
    try {
      const rule = toRule(body, 1000 + index, 'diag-rules-test')
      const verdict = await safety.verdict(parsePattern(rule.pattern))
      if (!verdict.safe) {
        const what = verdict.undecided ? 'pattern safety undecided' : 'unsafe pattern'
        throw new RuleRejectedError('unsafe_pattern', `${what}: ${verdict.reason}`)
      }
      candidates.push(rule)
      bodies.set(rule, body)
    } catch (error) {
      invalid++
      const details =
        error instanceof RuleRejectedError && error.details
          ? ` (${error.details.map((d) => `${d.path} ${d.message}`).join('; ')})`
          : ''
      const line = `${name}: INVALID: ${(error as Error).message}${details}`
      invalidRules.push(line)
      output.err(line)
    }
  }

  const tail = readLogTail(options.log)
  print(
    `log: ${options.log}, last ${tail.lines} lines (${tail.bytes.length} bytes${tail.truncated ? ', truncated to the service bounds' : ''})`,
  )
  const engine = new DiagnosisEngine(builtins, versions, [...seed, ...candidates])
  const evidence = withLogText(
    emptyEvidence({ alertname: options.alertname, instance: 'diag-rules-test', severity: 'none' }),
    // Redacted like the service does, so the matches are the ones it would find (D15).
    redactBytes(tail.bytes).text,
  )
  const diagnosis = await engine.diagnose(evidence)
  let unmatched = 0
  for (const rule of candidates) {
    const hit = diagnosis.matches.find((m) => m.rule.id === rule.id)
    if (hit) print(`${rule.branch} ${rule.ruleName}: MATCH at line ${hit.logMatch?.line}: ${hit.logMatch?.text}`)
    else {
      unmatched++
      const scoped =
        rule.ruleId && rule.ruleId !== options.alertname ? ` (it only applies to alertname ${rule.ruleId})` : ''
      print(`${rule.branch} ${rule.ruleName}: no match${scoped}`)
    }
  }
  // What the log earned: one uncorroborated line is a probable cause (docs/design.md).
  const { rule, classification, confidence } = diagnosis.primary
  print(
    `primary finding: ${rule.branch} ${rule.ruleName} (${rule.category}, ${classification}${confidence ? `/${confidence}` : ''})`,
  )
  const others = diagnosis.matches.slice(1).map((m) => m.rule.branch)
  if (others.length > 0) print(`also matched: ${others.join(', ')}`)

  const checked = await checkOnServer(
    candidates,
    bodies,
    server,
    options.json ? { out: () => {}, err: output.err } : output,
  )
  const conflicts = checked.results.filter((r) => r.outcome === 'conflict' || r.outcome === 'failed').length
  if (options.json) {
    output.out(
      JSON.stringify(
        {
          invalid: invalidRules,
          matches: candidates.map((rule) => {
            const hit = diagnosis.matches.find((m) => m.rule.id === rule.id)?.logMatch
            return { rule: `${rule.branch} ${rule.ruleName}`, line: hit?.line ?? null, text: hit?.text ?? null }
          }),
          primary: { branch: rule.branch, ruleName: rule.ruleName, classification },
          alsoMatched: others,
          server: checked,
          report: lines,
        },
        null,
        2,
      ),
    )
  }
  return invalid > 0 || conflicts > 0 || (options.expectMatch && unmatched > 0) ? 1 : 0
}

/**
 * The same checks against the catalogue of a running service (a dry run of each rule), when
 * one is reachable: a rule that would conflict there fails the test too. Unreachable, it
 * says so and the offline result stands.
 */
async function checkOnServer(
  candidates: CustomRule[],
  bodies: Map<CustomRule, unknown>,
  server: () => ClientOptions,
  output: Output,
): Promise<{ checked: boolean; url?: string; reason?: string; results: RuleOutcome[] }> {
  let client: ClientOptions
  try {
    client = server()
  } catch (error) {
    const reason = (error as Error).message
    output.err(`not checked against a service's catalogue: ${reason}`)
    return { checked: false, reason, results: [] }
  }
  const results: RuleOutcome[] = []
  try {
    for (const rule of candidates) {
      const result = await sendRule(client, bodies.get(rule), `${rule.branch} ${rule.ruleName}`, true)
      results.push(result)
      report(result, output)
    }
  } catch (error) {
    const reason = `${client.url} is not reachable (${(error as Error).message})`
    output.err(`not checked against a service's catalogue: ${reason}`)
    return { checked: false, url: client.url, reason, results: [] }
  }
  output.out(`checked against the catalogue of ${client.url}`)
  return { checked: true, url: client.url, results }
}
