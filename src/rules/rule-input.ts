import { readFileSync } from 'node:fs'
import { createAjv, loadSchema } from '../ajv.js'
import { toDetails } from '../schema-words.js'
import { loadExceptionTaxonomy } from './exception-taxonomy.js'
import { RuleRejectedError } from './rule-errors.js'
import type { CustomRule, CustomRuleInput } from './types.js'

export const rulepackSchema = loadSchema('rulepack-v1.schema.json')
const validate = createAjv().compile<CustomRuleInput>(rulepackSchema)

/** Validates one rule object against rulepack-v1 (the POST route uses the same schema). */
export function parseRuleInput(body: unknown): CustomRuleInput {
  if (!validate(body)) {
    throw new RuleRejectedError('invalid_rule', 'The rule does not match the schema.', toDetails(validate.errors))
  }
  return body
}

const listOf = (value: string | string[] | undefined): string[] | null =>
  value === undefined ? null : [...new Set(([] as string[]).concat(value))]

/**
 * A rule's exception classes and meanings as stored: lists, or null when absent. A meaning
 * the shipped taxonomy does not define could never match: it is refused, naming it.
 */
export function exceptionFields(input: CustomRuleInput): {
  exceptionClass: string[] | null
  exceptionMeaning: string[] | null
} {
  const exceptionMeaning = listOf(input.exceptionMeaning)
  const known = new Set(loadExceptionTaxonomy().meanings())
  const unknown = (exceptionMeaning ?? []).filter((meaning) => !known.has(meaning))
  if (unknown.length > 0) {
    throw new RuleRejectedError(
      'invalid_rule',
      `The exception taxonomy defines no meaning ${unknown.join(', ')} (builtin-rules/exception-taxonomy.json).`,
      unknown.map((meaning) => ({ path: '/exceptionMeaning', message: `${meaning} is not a meaning of the taxonomy` })),
    )
  }
  return { exceptionClass: listOf(input.exceptionClass), exceptionMeaning }
}

/** A rulepack file: one rule object or an array of them (the CLI splits arrays). */
export function readRulepack(file: string): unknown[] {
  return rulepackOf(readFileSync(file, 'utf8'))
}

/** The rules of a rulepack's text. */
export function rulepackOf(text: string): unknown[] {
  const data: unknown = JSON.parse(text)
  return Array.isArray(data) ? data : [data]
}

/**
 * A rule object as the service would store it, without the service: for evaluating
 * rulepacks offline (`appserver-diag rules test`, the corpus evaluation). Throws like
 * parseRuleInput.
 */
export function offlineCustomRule(body: unknown, id: number, createdBy: string, createdAt: string): CustomRule {
  const input = parseRuleInput(body)
  return {
    ...input,
    ...exceptionFields(input),
    id,
    ruleId: input.ruleId ?? null,
    classification: input.classification.toLowerCase() as CustomRule['classification'],
    confidence: input.confidence.toLowerCase() as CustomRule['confidence'],
    priority: input.priority ?? null,
    createdBy: input.createdBy ?? createdBy,
    createdAt,
  }
}
