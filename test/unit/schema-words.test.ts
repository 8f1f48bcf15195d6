import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAjv, loadSchema } from '../../src/ajv.js'
import { ruleSchemaProblems } from '../../src/cli/rule-schema-check.js'
import { configSchema } from '../../src/config/schema.js'
import { lastPattern } from '../../src/http/routes/rules-replay.js'
import { packageRoot, schemasDir } from '../../src/paths.js'
import { patternWords } from '../../src/pattern-words.js'
import { schemaErrorsInWords, toDetails } from '../../src/schema-words.js'
import { patternsOf } from '../helpers/schema-patterns.js'

const withoutWords = (patterns: readonly string[]) => patterns.filter((pattern) => !(pattern in patternWords))

/** The files of a folder and its subfolders. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

// The configuration says each of its values by its `description` (src/config/load.ts).
const configFile = join(packageRoot, 'src', 'config', 'schema.ts')

/** A string literal as the source spells it (single quotes, backslash escapes), as its value. */
const literal = (spelled: string) => JSON.parse(`"${spelled.replaceAll('"', '\\"')}"`) as string

/**
 * Every `pattern` a source file gives a string's schema (`{ type: 'string', …, pattern: … }`):
 * a string literal, or a constant the same file declares as one (`pattern: lastPattern`);
 * a pattern the test cannot read fails it.
 */
function sourcePatterns(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const string = "'((?:[^'\\\\]|\\\\.)*)'"
  const inSchema = new RegExp(`type: 'string',[^{}]*?\\bpattern: (?:${string}|(\\w+))`, 'g')
  return [...text.matchAll(inSchema)].map(([, spelled, name]) => {
    if (spelled !== undefined) return literal(spelled)
    const declared = new RegExp(`\\bconst ${name} = ${string}`).exec(text)?.[1]
    if (declared === undefined) throw new Error(`${file}: pattern ${name} is not a string constant of the file`)
    return literal(declared)
  })
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

describe('schema errors in words', () => {
  it('has words for every pattern of schemas/: a schema change without them fails here', () => {
    const files = readdirSync(schemasDir).filter((file) => file.endsWith('.json'))
    expect(files).toContain('rulepack-v1.schema.json')
    const patterns = files.flatMap((file) => patternsOf(loadSchema(file)))
    expect(patterns.length).toBeGreaterThan(30)
    expect(withoutWords(patterns)).toEqual([])
  })

  it('has words for every pattern written in src/, and the configuration a description for each of its own', () => {
    const files = filesUnder(join(packageRoot, 'src')).filter((file) => file.endsWith('.ts') && file !== configFile)
    const patterns = files.flatMap(sourcePatterns)
    // The CLI's config file, a route's page size, and N of a replay (a constant).
    expect(patterns).toEqual(
      expect.arrayContaining(['^https://', '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$', lastPattern]),
    )
    expect(withoutWords(patterns)).toEqual([])
    const configured = Object.entries(configSchema.properties).filter(([, schema]) => 'pattern' in schema)
    expect(readFileSync(configFile, 'utf8').match(/\bpattern: '/g)).toHaveLength(configured.length)
    for (const [key, schema] of configured) expect([key, schema.description]).toEqual([key, expect.any(String)])
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
    const names = createAjv({ verbose: true }).compile({
      type: 'object',
      properties: { labels: { type: 'object', propertyNames: { pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$' } } },
    })
    expect(names({ labels: { 'bad-name': 'x' } })).toBe(false)
    expect(schemaErrorsInWords(names.errors, 'thing')).toEqual([
      'labels has the field name "bad-name", which must be letters, digits and underscores that do not start with a digit, like appserver_instance',
    ])
  })

  it('gives the API its details in the same words, without the value sent, and a name only as a short quote', () => {
    const validate = createAjv().compile(loadSchema('alertmanager-webhook-v4.schema.json'))
    const labels = { alertname: 'A', environment: 'e', host: 'h', appserver_instance: 'i', check: 'c' }
    const payload = {
      version: '4',
      groupKey: 'g',
      status: 'firing',
      receiver: 'r',
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: 'https://am',
      alerts: [
        {
          status: 'firing',
          labels: { ...labels, 'bad-name': 'x', ['y'.repeat(400)]: 'x' },
          annotations: {},
          startsAt: 'yesterday',
          fingerprint: 'secret-value-sent',
        },
      ],
    }
    expect(validate(payload)).toBe(false)
    const details = toDetails(validate.errors)
    const labelWords = 'must be letters, digits and underscores that do not start with a digit, like appserver_instance'
    expect(details).toEqual(
      expect.arrayContaining([
        { path: '/alerts/0/labels/severity', message: 'is missing' },
        { path: '/alerts/0/labels', message: `the field name "bad-name" ${labelWords}` },
        {
          path: '/alerts/0/labels',
          message: `the field name "${'y'.repeat(56)}..." must be at most 256 characters long`,
        },
        { path: '/alerts/0/startsAt', message: 'must be an RFC 3339 date and time, like 2026-11-22T05:00:00Z' },
        { path: '/alerts/0/fingerprint', message: 'must be 1 to 128 letters and digits' },
      ]),
    )
    expect(JSON.stringify(details)).not.toMatch(/secret-value-sent|yesterday|pattern|property name/)
    expect(toDetails(validate.errors, 2)).toHaveLength(2)
  })

  it('bounds the path of a detail: a long field name sent in a body is cut in the pointer as in the message', () => {
    const validate = createAjv().compile(loadSchema('alertmanager-webhook-v4.schema.json'))
    const name = 'z'.repeat(3000)
    const labels = { alertname: 'A', environment: 'e', host: 'h', appserver_instance: 'i', check: 'c', severity: 's' }
    const alert = {
      status: 'firing',
      labels: { ...labels, [name]: 7 },
      annotations: {},
      startsAt: '2026-11-24T00:00:00Z',
    }
    expect(validate({ version: '4', groupKey: 'g', status: 'firing', receiver: 'r', alerts: [alert] })).toBe(false)
    const details = toDetails(validate.errors)
    const paths = details.map((detail) => detail.path)
    expect(paths).toContain(`/alerts/0/labels/${'z'.repeat(56)}...`)
    for (const path of paths) expect(path.length).toBeLessThanOrEqual(200)
  })
})
