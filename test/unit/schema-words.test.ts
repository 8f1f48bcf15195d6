import { describe, expect, it } from 'vitest'
import { createAjv, loadSchema } from '../../src/ajv.js'
import { ruleSchemaProblems } from '../../src/cli/rule-schema-check.js'
import { patternWords, schemaErrorsInWords } from '../../src/cli/schema-words.js'

/** Every `pattern` keyword's value in a schema that can fail validation (an `if` only selects). */
function patternsOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(patternsOf)
  if (node === null || typeof node !== 'object') return []
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'if' ? [] : key === 'pattern' && typeof value === 'string' ? [value] : patternsOf(value),
  )
}

const rule = {
  branch: 'OPS-31',
  ruleName: 'LedgerLockTimeout',
  category: 'database_persistence',
  targetSource: 'local_file',
  pattern: 'LedgerLockTimeout',
  assessment: 'The ledger could not lock an account row in time.',
  classification: 'probable_cause',
  confidence: 'medium',
  recommendedActions: ['Find the transaction that holds the lock.'],
}

describe('schema errors in words (the CLI)', () => {
  it('has words for every pattern of the rulepack schema: a schema change without them fails here', () => {
    const patterns = patternsOf(loadSchema('rulepack-v1.schema.json'))
    expect(patterns.length).toBeGreaterThan(5)
    expect(patterns.filter((pattern) => !(pattern in patternWords))).toEqual([])
  })

  it('says what each field must be, with the value given, one sentence a field', () => {
    expect(
      ruleSchemaProblems({
        ...rule,
        branch: 'ops31',
        category: 'memory',
        targetSource: 'remote',
        pattern: 'ab',
        classification: 'cause',
        recommendedActions: [],
        priority: 101,
        assessment: 'Two\nlines of text.',
      }).sort(),
    ).toEqual(
      [
        'branch "ops31" must be capital letters, a hyphen and two digits, like OPS-31',
        'category "memory" must be one of: jvm_memory, concurrency_threading, database_persistence, network_integration, application_lifecycle, storage_os_limits, security_session, general',
        'targetSource "remote" must be local_file',
        'pattern "ab" must be at least 3 characters long',
        'classification "cause" must be confirmed_cause or probable_cause (in any case)',
        'recommendedActions must have at least 1 item',
        'priority 101 must be 100 or less',
        'assessment "Two\\nlines of text." must be one line of text: no line breaks and no NUL characters',
      ].sort(),
    )
    expect(ruleSchemaProblems({ ...rule, recommendedActions: ['ok', 7] })).toEqual([
      'recommendedActions[0] "ok" must be at least 3 characters long',
      'recommendedActions[1] 7 must be text',
    ])
    expect(ruleSchemaProblems({ ...rule, ruleId: 5 })).toEqual(['ruleId 5 must be text or null'])
    expect(ruleSchemaProblems(['a rule?'])).toEqual(['the rule must be an object'])
    expect(ruleSchemaProblems(rule)).toEqual([])
  })

  it('never prints a regular expression: a pattern it has no words for is described, not quoted', () => {
    const validate = createAjv({ verbose: true }).compile({
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^[a-z]{3}\\d$', description: 'three letters and a digit' },
        bare: { type: 'string', pattern: '^x+$' },
      },
    })
    expect(validate({ code: 'AB1', bare: 'y' })).toBe(false)
    expect(schemaErrorsInWords(validate.errors, 'thing')).toEqual([
      'code "AB1" is not in its form: three letters and a digit',
      'bare "y" is not in the form it takes',
    ])
  })
})
