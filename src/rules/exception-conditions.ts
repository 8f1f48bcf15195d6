import type { Condition } from '../schema-types/builtin-rule-file.js'
import { type ExceptionFacts, throwableClass } from './exception-facts.js'
import { type CatalogueRule, isBuiltin } from './types.js'

// The conditions rules write, or are given, on the exception facts (docs/design.md,
// "Exceptions and codes"): json-rules-engine's own `contains` on lists the engine derives
// once per run from the exception records (exception-facts.ts).

/** The fact that holds the exception records of the log (text/exceptions/records.ts). */
export const exceptionsFact = 'exceptions'
/** The fact that holds what the taxonomy makes of them: the lists below and each record's verdict. */
export const exceptionSummaryFact = 'exceptionSummary'

type FactName = keyof ExceptionFacts
const contains = (fact: FactName, value: string): Condition => ({ fact, operator: 'contains', value })

/**
 * The exception meanings a condition tree asks for (`exceptionMeanings contains <meaning>`),
 * in the order written; a meaning under `not` is one it excludes, not one it rests on.
 */
export function meaningsOf(condition: Condition): string[] {
  if ('fact' in condition) {
    return condition.fact === 'exceptionMeanings' &&
      condition.operator === 'contains' &&
      typeof condition.value === 'string'
      ? [condition.value]
      : []
  }
  return [...(condition.all ?? []), ...(condition.any ?? [])].flatMap(meaningsOf)
}

/**
 * A custom rule's signature besides its pattern: the log holds an exception of one of
 * `classes` or a subclass (anywhere in a chain), or one whose verdict is one of `meanings`.
 */
export function exceptionSignature(classes: readonly string[], meanings: readonly string[]): Condition[] {
  return [
    ...classes.map((name) => contains('exceptionClasses', name)),
    ...meanings.map((meaning) => contains('exceptionMeanings', meaning)),
  ]
}

/** The same on two records or more, on different lines: a repeated signature, which corroborates. */
export function recurringSignature(classes: readonly string[], meanings: readonly string[]): Condition[] {
  return [
    ...classes.map((name) => contains('exceptionClassesRecurring', name)),
    ...meanings.map((meaning) => contains('exceptionMeaningsRecurring', meaning)),
  ]
}

/**
 * Every record the reader found for the rule's meanings was handled (logged at DEBUG, or
 * with a retry announced), and none counts: then nothing confirms the rule, whatever
 * repeats. Null for a rule without meanings.
 */
export function handledOnly(meanings: readonly string[]): Condition | null {
  if (meanings.length === 0) return null
  return { any: meanings.map((meaning) => contains('exceptionMeaningsHandled', meaning)) }
}

/**
 * The rule's wording is only quoted (docs/design.md, "Confidence is earned"): the log threw
 * exceptions that count and the reader read none of them as one of the rule's meanings, so
 * the lines its patterns matched are words inside another failure's message or context (a
 * client library the taxonomy does not know listing its past connect attempts), not the
 * failure the log reports. Their repetition then corroborates nothing. Null for a rule
 * without meanings: the reader says nothing of it.
 */
export function quotedOnly(meanings: readonly string[]): Condition | null {
  if (meanings.length === 0) return null
  return {
    all: [
      contains('exceptionClasses', throwableClass),
      ...meanings.map(
        (meaning): Condition => ({ fact: 'exceptionMeanings', operator: 'doesNotContain', value: meaning }),
      ),
    ],
  }
}

/** The exception classes and meanings a rule tests. */
export interface ExceptionSignature {
  classes: readonly string[]
  meanings: readonly string[]
}

/** A built-in's from its conditions (it names no classes), a custom rule's from its fields. */
export function exceptionSignatureOf(rule: CatalogueRule): ExceptionSignature {
  if (isBuiltin(rule)) return { classes: [], meanings: rule.meanings }
  return { classes: rule.exceptionClass ?? [], meanings: rule.exceptionMeaning ?? [] }
}
