import { emptyEvidence, withLogText } from '../evidence/empty-evidence.js'
import { readLogTail } from '../evidence/log-tail.js'
import { redactBytes } from '../evidence/redact.js'
import { loadBuiltinRules } from '../rules/builtin-loader.js'
import { DiagnosisEngine } from '../rules/diagnosis-engine.js'
import { PatternSafety } from '../rules/pattern-safety.js'
import { RuleRejectedError } from '../rules/rule-errors.js'
import { parseRuleInput, readRulepack } from '../rules/rule-input.js'
import { seedRulepackFile } from '../rules/seed.js'
import type { CustomRule } from '../rules/types.js'
import { parsePattern } from '../text/pattern.js'
import { type ClientOptions, call } from './client.js'

export type Print = (line: string) => void

const describeRule = (rule: { branch?: unknown; ruleName?: unknown }, index: number) =>
  `${String(rule.branch ?? `rule #${index + 1}`)} ${String(rule.ruleName ?? '')}`.trim()

/**
 * `diag rules push FILE`: one POST per rule (the API takes one rule a request, D19);
 * a 409 means the rule (or its branch, name or pattern) is already registered, which is
 * skipped and said; any other failure makes the exit code 1.
 */
export async function pushRules(client: ClientOptions, file: string, print: Print): Promise<number> {
  const rules = readRulepack(file)
  let failed = 0
  for (const [index, rule] of rules.entries()) {
    const name = describeRule(rule as Record<string, unknown>, index)
    const { status, body } = await call(client, 'POST', '/api/v1/rules', rule)
    if (status === 201) print(`${name}: registered as id ${body.id}`)
    else if (status === 409) print(`${name}: skipped, already registered (${body.error}: ${body.message})`)
    else {
      failed++
      const details = Array.isArray(body?.details)
        ? body.details.map((d: { path: string; message: string }) => ` ${d.path} ${d.message};`).join('')
        : ''
      print(`${name}: FAILED ${status} ${body?.error ?? ''}: ${body?.message ?? body}${details}`)
    }
  }
  print(`${rules.length - failed} of ${rules.length} rules registered or already present`)
  return failed > 0 ? 1 : 0
}

/** `diag rules list [--category C]`. */
export async function listRules(client: ClientOptions, category: string | undefined, print: Print): Promise<number> {
  const query = category ? `?category=${encodeURIComponent(category)}` : ''
  const { status, body } = await call(client, 'GET', `/api/v1/rules${query}`)
  if (status !== 200) {
    print(`FAILED ${status} ${body?.error ?? ''}: ${body?.message ?? body}`)
    return 1
  }
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
 * `diag rules test FILE --log LOGFILE`: evaluates a rulepack offline, with the engine of
 * the service, over the tail of a local log file (the same bounds as the worker), next
 * to the built-in and seed rules. Rules can never be deleted once registered: try first.
 */
export async function testRules(
  file: string,
  options: { log: string; alertname: string; expectMatch: boolean },
  print: Print,
): Promise<number> {
  const safety = new PatternSafety()
  const { rules: builtins, versions } = loadBuiltinRules()
  const createdAt = new Date().toISOString()
  const toRule = (body: unknown, id: number, createdBy: string): CustomRule => {
    const input = parseRuleInput(body)
    return {
      ...input,
      id,
      ruleId: input.ruleId ?? null,
      classification: input.classification.toLowerCase() as CustomRule['classification'],
      confidence: input.confidence.toLowerCase() as CustomRule['confidence'],
      createdBy: input.createdBy ?? createdBy,
      createdAt,
    }
  }
  const seed = readRulepack(seedRulepackFile).map((body, i) => toRule(body, i + 1, 'seed'))
  const candidates: CustomRule[] = []
  let invalid = 0
  for (const [index, body] of readRulepack(file).entries()) {
    const name = describeRule(body as Record<string, unknown>, index)
    try {
      const rule = toRule(body, 1000 + index, 'diag-rules-test')
      const verdict = await safety.verdict(parsePattern(rule.pattern))
      if (!verdict.safe) throw new RuleRejectedError('unsafe_pattern', `unsafe pattern: ${verdict.reason}`)
      candidates.push(rule)
    } catch (error) {
      invalid++
      const details =
        error instanceof RuleRejectedError && error.details
          ? ` (${error.details.map((d) => `${d.path} ${d.message}`).join('; ')})`
          : ''
      print(`${name}: INVALID: ${(error as Error).message}${details}`)
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
  const { rule } = diagnosis.primary
  print(
    `primary finding: ${rule.branch} ${rule.ruleName} (${rule.category}, ${rule.classification}${rule.confidence ? `/${rule.confidence}` : ''})`,
  )
  const others = diagnosis.matches.slice(1).map((m) => m.rule.branch)
  if (others.length > 0) print(`also matched: ${others.join(', ')}`)
  return invalid > 0 || (options.expectMatch && unmatched > 0) ? 1 : 0
}
