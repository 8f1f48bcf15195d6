import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, type RuleProperties } from 'json-rules-engine'
import { beforeAll, describe, expect, it } from 'vitest'
import { emptyFacts, withLogExcerpt } from '../../src/evidence/facts.js'
import { summarizeGc } from '../../src/evidence/gc-log.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { Catalogue } from '../../src/rules/catalogue.js'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { RulesService } from '../../src/rules/rules-service.js'
import { seedCustomRules } from '../../src/rules/seed.js'
import type { CustomRule, EvidenceFacts } from '../../src/rules/types.js'
import { openDatabase } from '../../src/store/database.js'
import { RulesRepository } from '../../src/store/rules-repository.js'
import { excerptOfText } from '../../src/text/excerpt.js'
import { benignLog, branchEvidence } from '../fixtures/branch-evidence.js'
import { random } from '../helpers/random.js'

const alert = { alertname: 'AppServerHealthCheckFailing', instance: 'app-01', severity: 'critical' }

function factsFor(branch: string): EvidenceFacts {
  const evidence = branchEvidence[branch]
  if (!evidence) throw new Error(`no evidence for ${branch}`)
  return 'log' in evidence
    ? withLogExcerpt(emptyFacts(alert), evidence.log)
    : { ...emptyFacts(alert), ...evidence.facts }
}

function newService(file = join(mkdtempSync(join(tmpdir(), 'diag-rules-')), 'rules.db')) {
  const db = openDatabase(file)
  return { service: new RulesService(new RulesRepository(db), new PatternSafety()), db, file }
}

describe('the rule catalogue (D18, D21, D29)', () => {
  let service: RulesService
  beforeAll(async () => {
    service = newService().service
    expect(await seedCustomRules(service)).toBe(10)
  })

  it('holds the 20 built-in branches, each with an assessment and 4 actions, and the 10 seed rules', () => {
    const { rules } = loadBuiltinRules()
    expect(rules).toHaveLength(20)
    for (const rule of rules) {
      expect(rule.id).toBe(`builtin-${rule.branch}`)
      expect(rule.recommendedActions).toHaveLength(4)
      expect(rule.assessment).toMatch(/^[A-Z].+\.$/)
    }
    expect(service.catalogue.custom.map((r) => r.branch)).toEqual(
      ['09', '10', '11', '12', '13', '14', '15', '16', '17', '18'].map((n) => `TD-${n}`),
    )
    expect(
      service.catalogue.custom.every((r) => r.createdBy === 'seed' && r.classification === 'confirmed_cause'),
    ).toBe(true)
    expect(service.list()).toHaveLength(30)
  })

  it('seeds only once', async () => {
    expect(await seedCustomRules(service)).toBe(0)
    expect(service.catalogue.custom).toHaveLength(10)
  })

  it.each(Object.keys(branchEvidence))('diagnoses %s from its evidence', async (branch) => {
    const diagnosis = await service.diagnose(factsFor(branch))
    expect(diagnosis.primary.rule.branch).toBe(branch)
    if ('log' in (branchEvidence[branch] as object) && branch !== 'TD-08' && !branch.startsWith('GC-0')) {
      expect(diagnosis.primary.logMatch?.line).toBeGreaterThan(0)
    }
  })

  it('diagnoses TD-07 when no evidence at all was collected', async () => {
    const diagnosis = await service.diagnose(emptyFacts(alert))
    expect(diagnosis.primary.rule.branch).toBe('TD-07')
    expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(['TD-07'])
  })

  it('matches nothing but TD-08 on a benign excerpt', async () => {
    const diagnosis = await service.diagnose(withLogExcerpt(emptyFacts(alert), benignLog))
    expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(['TD-08'])
    expect(diagnosis.trace.filter((t) => t.matched).map((t) => t.branch)).toEqual(['TD-08'])
    expect(diagnosis.trace).toHaveLength(30)
  })

  it('ranks several matches by D21 and lists them all', async () => {
    const log = [branchEvidence['GC-03'], branchEvidence['TD-13'], branchEvidence['TH-02'], branchEvidence['TD-02']]
      .map((e) => (e as { log: string }).log)
      .join('\n')
    const facts = {
      ...withLogExcerpt(emptyFacts(alert), log),
      probe: { outcome: 'timeout' as const, statusCode: null, latencyMs: 5000 },
    }
    const diagnosis = await service.diagnose(facts)
    // confirmed: custom TD-13 before built-in TD-02; probable: TH-02, GC-03, AH-05 by family.
    expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(['TD-13', 'TD-02', 'TH-02', 'GC-03', 'AH-05'])
  })

  it('prefers GC-01 and GC-02 over the less specific GC-03', async () => {
    const gc01 = await service.diagnose(factsFor('GC-01'))
    expect(gc01.matches.map((m) => m.rule.branch)).toEqual(['GC-01'])
    const gc02 = await service.diagnose(
      withLogExcerpt(
        emptyFacts(alert),
        `${(branchEvidence['GC-02'] as { log: string }).log}\n${(branchEvidence['GC-03'] as { log: string }).log}`,
      ),
    )
    expect(gc02.matches.map((m) => m.rule.branch)).toEqual(['GC-02'])
  })
})

describe('after a restart', () => {
  it('rebuilds the live catalogue from SQLite and builtin-rules/', async () => {
    const first = newService()
    await seedCustomRules(first.service)
    await first.service.register(
      {
        branch: 'OPS-07',
        ruleName: 'FeedStalled',
        category: 'general',
        targetSource: 'local_file',
        pattern: 'FeedStalledException',
        assessment: 'The feed importer stalled.',
        classification: 'confirmed_cause',
        confidence: 'high',
        recommendedActions: ['Restart the importer.'],
      },
      'ops',
    )
    first.db.close()
    const second = newService(first.file)
    expect(second.service.list()).toHaveLength(31)
    expect(await seedCustomRules(second.service)).toBe(0)
    const diagnosis = await second.service.diagnose(
      withLogExcerpt(emptyFacts(alert), 'ERROR FeedStalledException in importer'),
    )
    expect(diagnosis.primary.rule).toMatchObject({ id: 11, branch: 'OPS-07', createdBy: 'ops' })
    second.db.close()
  })
})

describe('custom rules in the engine (D19, D21)', () => {
  const custom = (id: number, pattern: string, extra: Partial<CustomRule> = {}): CustomRule => ({
    id,
    ruleId: null,
    branch: `CX-${String(id).padStart(2, '0')}`,
    ruleName: `CustomRule${id}`,
    category: 'general',
    targetSource: 'local_file',
    pattern,
    assessment: 'A custom rule for the test.',
    classification: 'probable_cause',
    confidence: 'medium',
    recommendedActions: ['Look.'],
    createdBy: 'test',
    createdAt: '2026-11-22T05:00:00.000Z',
    ...extra,
  })
  const { rules: builtins, versions } = loadBuiltinRules()
  const log = `${(branchEvidence['TD-02'] as { log: string }).log}\nORDERS-7: timeout talking to shard-12\nbatch job 44 failed`

  it('limits a rule with a ruleId to alerts of that alertname', async () => {
    const catalogue = new Catalogue(
      builtins,
      [
        custom(1, 'batch job 44 failed', {
          ruleId: 'BatchJobFailed',
          classification: 'confirmed_cause',
          confidence: 'high',
        }),
      ],
      versions,
    )
    const other = await catalogue.diagnose(withLogExcerpt(emptyFacts(alert), log))
    expect(other.primary.rule.branch).toBe('TD-02')
    const own = await catalogue.diagnose(withLogExcerpt(emptyFacts({ ...alert, alertname: 'BatchJobFailed' }), log))
    expect(own.primary.rule.branch).toBe('CX-01')
  })

  it('gives the same findings whatever order the catalogue was built in (property, 200 permutations)', async () => {
    const rules = [
      custom(1, 'ORDERS-7'),
      custom(2, '/timeout talking to shard-[0-9]{1,3}/', { classification: 'confirmed_cause', confidence: 'high' }),
      custom(3, 'batch job', { classification: 'confirmed_cause', confidence: 'high' }),
      custom(4, 'shard-12'),
      custom(5, 'not in the log'),
      custom(6, '/JAVA HEAP/i'),
    ]
    const facts = {
      ...withLogExcerpt(emptyFacts(alert), log),
      probe: { outcome: 'http_error' as const, statusCode: 500, latencyMs: 3 },
    }
    const reference = await new Catalogue(builtins, rules, versions).diagnose(facts)
    const expected = reference.matches.map((m) => m.rule.id)
    expect(expected).toEqual([2, 3, 'builtin-TD-02', 1, 4, 6, 'builtin-AH-04'])
    let seed = 7
    const shuffle = <T>(items: readonly T[]): T[] => {
      const copy = [...items]
      for (let i = copy.length - 1; i > 0; i--) {
        seed = (seed * 1103515245 + 12345) % 2147483648
        const j = seed % (i + 1)
        ;[copy[i], copy[j]] = [copy[j] as T, copy[i] as T]
      }
      return copy
    }
    for (let round = 0; round < 200; round++) {
      const diagnosis = await new Catalogue(shuffle(builtins), shuffle(rules), versions).diagnose(facts)
      expect(diagnosis.matches.map((m) => m.rule.id)).toEqual(expected)
    }
  })

  it('matches only the last 512 Ki characters of an oversized excerpt', async () => {
    const catalogue = new Catalogue(builtins, [custom(1, 'early marker line')], versions)
    const huge = `early marker line\n${'x'.repeat(600 * 1024)}\nORDERS-7 late`
    const diagnosis = await catalogue.diagnose(withLogExcerpt(emptyFacts(alert), huge))
    expect(diagnosis.primary.rule.branch).toBe('TD-08')
  })

  it('leaves out only rules the engine would find false: same matches as every rule in one engine (property)', async () => {
    const catalogue = new Catalogue(
      builtins,
      [custom(1, 'ORDERS-7', { ruleId: 'BatchJobFailed' }), custom(2, 'x')],
      versions,
    )
    const everything = (facts: EvidenceFacts, keys: string[]) =>
      new Engine(
        catalogue.rules.map((rule) => ({
          name: String(rule.id),
          conditions: ('conditions' in rule
            ? rule.conditions
            : {
                all: [
                  { fact: 'logPatterns', operator: 'contains', value: `custom-${rule.id}` },
                  ...(rule.ruleId
                    ? [{ fact: 'alert', path: '$.alertname', operator: 'equal', value: rule.ruleId }]
                    : []),
                ],
              }) as RuleProperties['conditions'],
          event: { type: 'match' },
        })),
        { allowUndefinedFacts: true },
      )
        .run({ logPatterns: keys, evidence: { available: facts.available }, ...facts })
        .then((result) => new Set(result.results.map((r) => r.name)))
    const next = random(2111)
    const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)] as T
    const keys = [...builtins.map((rule) => rule.branch), 'custom-1', 'custom-2']
    for (let round = 0; round < 300; round++) {
      const base = emptyFacts({ ...alert, alertname: pick(['AppServerHealthCheckFailing', 'BatchJobFailed']) })
      const facts: EvidenceFacts = {
        ...base,
        available: next() < 0.8,
        gc: { fullCollections: 5, fullCollectionsHighOccupancy: pick([0, 3, 5]), maxPauseMs: pick([0, 1500]) },
        container: { ...base.container, oomKilled: next() < 0.2, crashExits: pick([0, 2]), errorExits: pick([0, 1]) },
        metrics: { heapUsedRatio: pick([null, 0.5, 0.95]), threads: null },
        probe: { ...base.probe, outcome: pick(['ok', 'http_error', 'timeout', 'unavailable'] as const) },
      }
      const present = keys.filter(() => next() < 0.15)
      const matches = new Map(present.map((key) => [key, { line: 1, text: key, context: [] }]))
      const diagnosis = await catalogue.evaluate(facts, matches as never)
      const expected = await everything(facts, present)
      expect({ round, matched: diagnosis.trace.filter((t) => t.matched).map((t) => String(t.id)) }).toEqual({
        round,
        matched: catalogue.rules.map((rule) => String(rule.id)).filter((id) => expected.has(id)),
      })
    }
  })

  it('evaluates concurrently on one catalogue without interference', async () => {
    const catalogue = new Catalogue(builtins, [custom(1, 'ORDERS-7')], versions)
    // This catalogue has no seed rules, so TD-09..TD-18 are left out.
    const branches = Object.keys(branchEvidence).filter((b) => !/^TD-(09|1\d)$/.test(b))
    const results = await Promise.all(branches.map((b) => catalogue.diagnose(factsFor(b))))
    expect(results.map((r) => r.primary.rule.branch)).toEqual(branches)
  })
})

describe('summarizeGc', () => {
  it('reads legacy ParallelGC and CMS lines, old generation first', () => {
    const summary = summarizeGc(
      excerptOfText(
        [
          '2026-11-22T04:55:01.001+0000: [Full GC (Ergonomics) [PSYoungGen: 1024K->0K(2048K)] [ParOldGen: 9000K->8990K(9216K)] 10024K->8990K(11264K), [Metaspace: 3000K->3000K(1056768K)], 7.2680812 secs] [Times: user=1.2 sys=0.0, real=7.27 secs]',
          '2026-11-22T04:55:09.001+0000: [Full GC (Allocation Failure) [Tenured: 500K->100K(9216K)] 900K->100K(11264K), 0.5000000 secs]',
          '2026-11-22T04:55:10.001+0000: [GC (Allocation Failure) [PSYoungGen: 2048K->512K(2048K)] 9000K->8000K(11264K), 0.0123456 secs]',
        ].join('\n'),
      ),
    )
    expect(summary).toEqual({ fullCollections: 2, fullCollectionsHighOccupancy: 1, maxPauseMs: 7268.081 })
  })

  it('reads unified logging and ignores everything else', () => {
    const summary = summarizeGc(
      excerptOfText(
        [
          '[2026-11-22T04:55:01.001+0000][info][gc] GC(7) Pause Full (System.gc()) 1000M->100M(2048M) 310.500ms',
          '[2026-11-22T04:55:02.001+0000][info][gc] GC(8) Pause Remark 1200M->1100M(2048M) 4.125ms',
          '2026-11-22 04:55:03 INFO GC pressure is fine, Pause for 3000ms requested by user',
        ].join('\n'),
      ),
    )
    expect(summary).toEqual({ fullCollections: 1, fullCollectionsHighOccupancy: 0, maxPauseMs: 310.5 })
  })
})
