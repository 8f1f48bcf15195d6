import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { summarizeGc } from '../../src/evidence/gc-log.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { DiagnosisEngine } from '../../src/rules/diagnosis-engine.js'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { offlineCustomRule, readRulepack } from '../../src/rules/rule-input.js'
import { RulesService } from '../../src/rules/rules-service.js'
import { seedCustomRules, seedRulepackFile } from '../../src/rules/seed.js'
import type { CustomRule, Evidence } from '../../src/rules/types.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { RulesRepository } from '../../src/store/sqlite/rules-repository.js'
import { excerptOfText } from '../../src/text/excerpt.js'
import { benignLog, branchEvidence } from '../fixtures/branch-evidence.js'
import { random } from '../helpers/random.js'

const alert = { alertname: 'AppServerHealthCheckFailing', instance: 'app-01', severity: 'critical' }

function evidenceFor(branch: string): Evidence {
  const evidence = branchEvidence[branch]
  if (!evidence) throw new Error(`no evidence for ${branch}`)
  return 'log' in evidence
    ? withLogText(emptyEvidence(alert), evidence.log)
    : { ...emptyEvidence(alert), ...evidence.facts }
}

/** A rules service on a real SQLite file, with a live engine that follows its registrations. */
function newService(file = join(mkdtempSync(join(tmpdir(), 'diag-rules-')), 'rules.db')) {
  const db = openDatabase(file)
  const service = new RulesService(new RulesRepository(db), new PatternSafety())
  const { rules: builtins, versions } = loadBuiltinRules()
  const engine = new DiagnosisEngine(builtins, versions, service.catalogue.custom)
  service.onRegistered((rule) => engine.addCustomRule(rule))
  return { service, engine, db, file }
}

describe('the rule catalogue and its live engine', () => {
  let service: RulesService
  let engine: DiagnosisEngine
  beforeAll(async () => {
    ;({ service, engine } = newService())
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

  it('seeds on a host too busy to prove any pattern (the pinned seed is not proven again at start, D29)', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-rules-')), 'rules.db'))
    const hurried = {
      verdict: async () => ({
        safe: false as const,
        undecided: true as const,
        reason: 'recheck did not finish its proof within 3000 ms (the host may be busy); try again',
      }),
    }
    const busy = new RulesService(new RulesRepository(db), hurried)
    expect(await seedCustomRules(busy)).toBe(10)
    db.close()
  })

  it.each(Object.keys(branchEvidence))('diagnoses %s from its evidence', async (branch) => {
    const diagnosis = await engine.diagnose(evidenceFor(branch))
    expect(diagnosis.primary.rule.branch).toBe(branch)
    if ('log' in (branchEvidence[branch] as object) && branch !== 'TD-08' && !branch.startsWith('GC-0')) {
      expect(diagnosis.primary.logMatch?.line).toBeGreaterThan(0)
    }
  })

  it('diagnoses TD-07 when no evidence at all was collected', async () => {
    const diagnosis = await engine.diagnose(emptyEvidence(alert))
    expect(diagnosis.primary.rule.branch).toBe('TD-07')
    expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(['TD-07'])
  })

  it('matches nothing but TD-08 on a benign excerpt', async () => {
    const diagnosis = await engine.diagnose(withLogText(emptyEvidence(alert), benignLog))
    expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(['TD-08'])
    expect(diagnosis.trace.filter((t) => t.matched).map((t) => t.branch)).toEqual(['TD-08'])
    expect(diagnosis.trace).toHaveLength(30)
  })

  it("ranks several matches by their rules' priorities and lists them all", async () => {
    const log = [branchEvidence['GC-03'], branchEvidence['TD-13'], branchEvidence['TH-02'], branchEvidence['TD-02']]
      .map((e) => (e as { log: string }).log)
      .join('\n')
    const evidence = {
      ...withLogText(emptyEvidence(alert), log),
      probe: { outcome: 'timeout' as const, statusCode: null, latencyMs: 5000 },
    }
    const diagnosis = await engine.diagnose(evidence)
    // Confirmed (the failing probe corroborates): built-in TD-02 and the seed's TD-13 share
    // priority 80, built-ins first; probable: TH-02, GC-03, AH-05 by family.
    expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(['TD-02', 'TD-13', 'TH-02', 'GC-03', 'AH-05'])
  })

  it('prefers GC-01 and GC-02 over the less specific GC-03', async () => {
    const gc01 = await engine.diagnose(evidenceFor('GC-01'))
    expect(gc01.matches.map((m) => m.rule.branch)).toEqual(['GC-01'])
    const gc02 = await engine.diagnose(
      withLogText(
        emptyEvidence(alert),
        `${(branchEvidence['GC-02'] as { log: string }).log}\n${(branchEvidence['GC-03'] as { log: string }).log}`,
      ),
    )
    expect(gc02.matches.map((m) => m.rule.branch)).toEqual(['GC-02'])
  })
})

describe('after a restart', () => {
  it('builds the catalogue and the engine again from SQLite and builtin-rules/', async () => {
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
    const diagnosis = await second.engine.diagnose(
      withLogText(emptyEvidence(alert), 'ERROR FeedStalledException in importer'),
    )
    expect(diagnosis.primary.rule).toMatchObject({ id: 11, branch: 'OPS-07', createdBy: 'ops' })
    second.db.close()
  })
})

describe('custom rules in the engine', () => {
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
    priority: null,
    recommendedActions: ['Look.'],
    createdBy: 'test',
    createdAt: '2026-11-22T05:00:00.000Z',
    ...extra,
  })
  const { rules: builtins, versions } = loadBuiltinRules()
  const log = `${(branchEvidence['TD-02'] as { log: string }).log}\nORDERS-7: timeout talking to shard-12\nbatch job 44 failed`

  it('limits a rule with a ruleId to alerts of that alertname', async () => {
    const engine = new DiagnosisEngine(builtins, versions, [
      custom(1, 'batch job 44 failed', {
        ruleId: 'BatchJobFailed',
        classification: 'confirmed_cause',
        confidence: 'high',
      }),
    ])
    const other = await engine.diagnose(withLogText(emptyEvidence(alert), log))
    expect(other.primary.rule.branch).toBe('TD-02')
    const own = await engine.diagnose(withLogText(emptyEvidence({ ...alert, alertname: 'BatchJobFailed' }), log))
    expect(own.primary.rule.branch).toBe('CX-01')
  })

  it('gives the same findings whatever order the engine got its rules in (property, 200 permutations)', async () => {
    const rules = [
      custom(1, 'ORDERS-7'),
      custom(2, '/timeout talking to shard-[0-9]{1,3}/', { classification: 'confirmed_cause', confidence: 'high' }),
      custom(3, 'batch job', { classification: 'confirmed_cause', confidence: 'high' }),
      custom(4, 'shard-12'),
      custom(5, 'not in the log'),
      custom(6, '/JAVA HEAP/i'),
    ]
    const evidence = {
      ...withLogText(emptyEvidence(alert), log),
      probe: { outcome: 'http_error' as const, statusCode: 500, latencyMs: 3 },
    }
    const reference = await new DiagnosisEngine(builtins, versions, rules).diagnose(evidence)
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
      const diagnosis = await new DiagnosisEngine(shuffle(builtins), versions, shuffle(rules)).diagnose(evidence)
      expect(diagnosis.matches.map((m) => m.rule.id)).toEqual(expected)
    }
  })

  it('matches only the last 512 Ki characters of an oversized excerpt', async () => {
    const engine = new DiagnosisEngine(builtins, versions, [custom(1, 'early marker line')])
    const huge = `early marker line\n${'x'.repeat(600 * 1024)}\nORDERS-7 late`
    const diagnosis = await engine.diagnose(withLogText(emptyEvidence(alert), huge))
    expect(diagnosis.primary.rule.branch).toBe('TD-08')
  })

  it('reaches TD-07 or TD-08 through the engine exactly when no other rule matched (property, 300 rounds)', async () => {
    const engine = new DiagnosisEngine(builtins, versions, [
      custom(1, 'ORDERS-7', { ruleId: 'BatchJobFailed' }),
      custom(2, 'shard-12'),
    ])
    const next = random(2111)
    const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)] as T
    const lines = [
      ...builtins.flatMap((rule) => rule.patterns.filter((p) => !p.startsWith('/'))),
      'ORDERS-7',
      'shard-12',
    ]
    for (let round = 0; round < 300; round++) {
      const base = emptyEvidence({ ...alert, alertname: pick(['AppServerHealthCheckFailing', 'BatchJobFailed']) })
      const text = lines.filter(() => next() < 0.05).join('\n')
      const evidence: Evidence = {
        ...base,
        available: text.length > 0 || next() < 0.7,
        log: { text },
        gc: { fullCollections: 5, fullCollectionsHighOccupancy: pick([0, 0, 3]), maxPauseMs: pick([0, 0, 1500]) },
        container: {
          ...base.container,
          oomKilled: next() < 0.1,
          crashExits: pick([0, 0, 2]),
          errorExits: pick([0, 0, 1]),
        },
        metrics: { heapUsedRatio: pick([null, 0.5, 0.95]), threads: null },
        probe: { ...base.probe, outcome: pick(['ok', 'ok', 'http_error', 'timeout', 'unavailable'] as const) },
      }
      const diagnosis = await engine.diagnose(evidence)
      const branches = diagnosis.matches.map((m) => m.rule.branch)
      const fallbacks = branches.filter((b) => b === 'TD-07' || b === 'TD-08')
      const specific = diagnosis.trace.filter((t) => t.matched && t.branch !== 'TD-07' && t.branch !== 'TD-08')
      expect({ round, fallbacks }).toEqual({
        round,
        fallbacks: specific.length > 0 ? [] : [evidence.available ? 'TD-08' : 'TD-07'],
      })
      expect(branches).toHaveLength(specific.length || 1)
    }
  })

  it('adds a registered rule to the same engine instance: one rule more, used by the next run', async () => {
    const engine = new DiagnosisEngine(builtins, versions, [])
    const before = { instance: engine.instance, rules: engine.ruleCount }
    const evidence = withLogText(emptyEvidence(alert), 'ERROR ORDERS-7: timeout talking to shard-12')
    expect((await engine.diagnose(evidence)).primary.rule.branch).toBe('TD-08')
    engine.addCustomRule(custom(7, 'ORDERS-7'))
    const diagnosis = await engine.diagnose(evidence)
    expect(diagnosis.primary.rule.branch).toBe('CX-07')
    expect(diagnosis.catalogue.engine).toEqual({ instance: before.instance, rules: before.rules + 1 })
  })

  it('serialises concurrent runs on one engine without interference', async () => {
    const engine = new DiagnosisEngine(builtins, versions, [custom(1, 'ORDERS-7')])
    // This engine has no seed rules, so TD-09..TD-18 are left out.
    const branches = Object.keys(branchEvidence).filter((b) => !/^TD-(09|1\d)$/.test(b))
    const results = await Promise.all(branches.map((b) => engine.diagnose(evidenceFor(b))))
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
    expect(summary).toEqual({
      collections: 3,
      fullCollections: 2,
      fullCollectionsHighOccupancy: 1,
      // A record with its times counts what the application waited: real=7.27 secs.
      maxPauseMs: 7270,
      totalPauseMs: 7782.346,
      // The whole heap of the last line, not its young generation.
      heapAfterLast: { usedKiB: 8000, capacityKiB: 11264 },
    })
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
    expect(summary).toEqual({
      collections: 2,
      fullCollections: 1,
      fullCollectionsHighOccupancy: 0,
      maxPauseMs: 310.5,
      totalPauseMs: 314.625,
      heapAfterLast: { usedKiB: 1100 * 1024, capacityKiB: 2048 * 1024 },
    })
  })
})

describe('confidence is earned (docs/design.md)', () => {
  const { rules: builtins, versions } = loadBuiltinRules()
  const engine = new DiagnosisEngine(builtins, versions, [
    {
      id: 1,
      ruleId: null,
      branch: 'CX-01',
      ruleName: 'LedgerLockTimeout',
      category: 'database_persistence',
      targetSource: 'local_file',
      pattern: 'LedgerLockTimeout: lock on account',
      assessment: 'The ledger could not lock an account row in time.',
      classification: 'confirmed_cause',
      confidence: 'high',
      priority: null,
      recommendedActions: ['Find the transaction that holds the lock.'],
      createdBy: 'test',
      createdAt: '2026-11-22T05:00:00.000Z',
    },
  ])
  const oom =
    '2026-11-22 04:55:02 SEVERE [exec-4] Servlet.service() threw exception\njava.lang.OutOfMemoryError: Java heap space'
  const primaryOf = async (evidence: Evidence) => {
    const { primary } = await engine.diagnose(evidence)
    return { branch: primary.rule.branch, classification: primary.classification, corroborated: primary.corroborated }
  }
  const withLog = (log: string, facts: Partial<Evidence> = {}) => ({
    ...withLogText(emptyEvidence(alert), log),
    ...facts,
  })

  it('makes one uncorroborated line of a confirmed cause a probable cause, ranked with the probable ones', async () => {
    expect(await primaryOf(withLog(oom))).toEqual({
      branch: 'TD-02',
      classification: 'probable_cause',
      corroborated: false,
    })
    const { primary } = await engine.diagnose(withLog(oom))
    expect(primary.confidence).toBe('medium')
    // The catalogue still lists what the rule can claim.
    expect(primary.rule.classification).toBe('confirmed_cause')
  })

  it('confirms it when the signature repeats, the probe fails, a container event or a rule metric agrees', async () => {
    const confirmed = { branch: 'TD-02', classification: 'confirmed_cause', corroborated: true }
    const base = emptyEvidence(alert)
    expect(await primaryOf(withLog(`${oom}\n${oom}`))).toEqual(confirmed)
    expect(await primaryOf(withLog(oom, { probe: { outcome: 'timeout', statusCode: null, latencyMs: 5000 } }))).toEqual(
      confirmed,
    )
    expect(await primaryOf(withLog(oom, { container: { ...base.container, events: 1, errorExits: 1 } }))).toEqual(
      confirmed,
    )
    // TD-02's own corroboratedBy: the heap metric at 90 % or more.
    expect(await primaryOf(withLog(oom, { metrics: { heapUsedRatio: 0.95, threads: null } }))).toEqual(confirmed)
    expect(await primaryOf(withLog(oom, { metrics: { heapUsedRatio: 0.5, threads: null } }))).toMatchObject({
      classification: 'probable_cause',
    })
  })

  it('holds custom confirmed rules to the same rule, at the custom priorities (90 corroborated, 60 not)', async () => {
    const ledger = '2026-11-22 05:00:00 ERROR LedgerLockTimeout: lock on account 4711 not granted'
    expect(await primaryOf(withLog(ledger))).toEqual({
      branch: 'CX-01',
      classification: 'probable_cause',
      corroborated: false,
    })
    // Uncorroborated at 60 still outranks a built-in probable cause (50), not a corroborated one (80).
    expect(await primaryOf(withLog(`${ledger}\n${oom}\n${oom}`))).toMatchObject({ branch: 'TD-02' })
    expect(await primaryOf(withLog(`${ledger}\n${ledger}\n${oom}\n${oom}`))).toEqual({
      branch: 'CX-01',
      classification: 'confirmed_cause',
      corroborated: true,
    })
  })

  it('leaves rules that rest on facts, not log lines, as they are written', async () => {
    const { primary } = await engine.diagnose(evidenceFor('GC-01'))
    expect(primary).toMatchObject({ classification: 'confirmed_cause', corroborated: null })
    expect(primary.rule.branch).toBe('GC-01')
  })
})

const createdAt = '2026-11-22T05:00:00.000Z'

describe('root causes decide (docs/design.md, "Ranking")', () => {
  const { rules: builtins, versions } = loadBuiltinRules()
  const seed = readRulepack(seedRulepackFile).map((body, i) => offlineCustomRule(body, i + 1, 'seed', createdAt))
  const engine = new DiagnosisEngine(builtins, versions, seed)

  it('ranks what the deepest cause shows, made the component’s own, first; the wrapper after it as context', async () => {
    const log = [
      '2026-11-22 05:00:01.002 ERROR 1 --- [nio-8080-exec-3] o.a.c.c.C.[.[.[/].[dispatcherServlet] : Servlet.service() threw exception',
      'org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection',
      '\tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)',
      'Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.',
      '\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)',
      'Caused by: java.net.ConnectException: Connection refused',
      '\tat java.base/sun.nio.ch.Net.connect0(Native Method)',
      '\t... 12 more',
    ].join('\n')
    const diagnosis = await engine.diagnose(withLogText(emptyEvidence(alert), log))
    // The refusal (the deepest cause) decides the kind of failure, the pool and the JDBC
    // wrapper whose it is: the database is unreachable (TD-18, from the exception reader, at
    // the trace's first line). The pool's time-out (TD-09) is the symptom, after it; the
    // refusal is no upstream's, so TD-01 does not apply.
    expect(diagnosis.matches.map((m) => [m.rule.branch, m.logMatch?.line, m.logMatch?.causeDepth])).toEqual([
      ['TD-18', 2, 0],
      ['TD-09', 4, 1],
    ])
  })

  it('keeps priorities between findings that are not causes of one another', async () => {
    const log =
      'java.net.ConnectException: Connection refused\nHikariPool-1 - Connection is not available, request timed out after 30000ms.'
    const diagnosis = await engine.diagnose(withLogText(emptyEvidence(alert), log))
    // Both at 50 (one line each, no trace): the built-in first, then the seed.
    expect(diagnosis.matches.map((m) => [m.rule.branch, m.logMatch?.causeDepth])).toEqual([
      ['TD-01', 0],
      ['TD-09', 0],
    ])
  })
})

describe('explicit priorities (docs/design.md, "Ranking")', () => {
  const { rules: builtins, versions } = loadBuiltinRules()
  const seed = readRulepack(seedRulepackFile).map((body, i) => offlineCustomRule(body, i + 1, 'seed', createdAt))
  const rule = (id: number, pattern: string, priority: number | null): CustomRule => ({
    ...offlineCustomRule(
      {
        branch: `PR-${id}`,
        ruleName: `Prioritised${id}`,
        category: 'general',
        targetSource: 'local_file',
        pattern,
        assessment: 'A rule with a priority of its own.',
        classification: 'confirmed_cause',
        confidence: 'high',
        priority,
        recommendedActions: ['Look.'],
      },
      id,
      'test',
      createdAt,
    ),
  })

  it('gives the seed the built-ins’ rank: it no longer outranks them by being registered', () => {
    expect(seed.every((r) => r.priority === 80)).toBe(true)
  })

  it('ranks a custom rule by its own priority, corroborated or not, and by classification without one', async () => {
    const engine = new DiagnosisEngine(builtins, versions, [
      rule(21, 'ShardTimeout', 70),
      rule(22, 'BatchFailed', null),
    ])
    const run = async (log: string) =>
      (await engine.diagnose(withLogText(emptyEvidence(alert), log))).matches.map((m) => m.rule.branch)
    const oom = 'java.lang.OutOfMemoryError: Java heap space'
    // Corroborated (repeated): TD-02 at 80 before PR-21 at 70; PR-22 without a priority at 90 first.
    expect(await run([oom, oom, 'ShardTimeout', 'ShardTimeout', 'BatchFailed', 'BatchFailed'].join('\n'))).toEqual([
      'PR-22',
      'TD-02',
      'PR-21',
    ])
    // One line each: 60 (PR-22), 50 (TD-02), 40 (PR-21).
    expect(await run([oom, 'ShardTimeout', 'BatchFailed'].join('\n'))).toEqual(['PR-22', 'TD-02', 'PR-21'])
  })
})

describe('a probe symptom and the limit that explains it (found on a real Tomcat, test/servers)', () => {
  const { rules: builtins, versions } = loadBuiltinRules()
  const engine = new DiagnosisEngine(builtins, versions)

  it('names the OS limit, not the unresponsive probe, when the logs say the process ran out of files', async () => {
    const log = [
      '23-Nov-2026 16:47:35.952 SEVERE [http-nio-127.0.0.1-41071-Acceptor] org.apache.tomcat.util.net.Acceptor.run Socket accept failed',
      '\tjava.io.IOException: Too many open files',
    ].join('\n')
    const probe = { outcome: 'timeout' as const, statusCode: null, latencyMs: 5000 }
    const diagnosis = await engine.diagnose({ ...withLogText(emptyEvidence(alert), log), probe })
    expect(diagnosis.primary.rule.branch).toBe('TD-06')
    expect(diagnosis.matches.map((m) => m.rule.branch)).not.toContain('AH-05')
    // Without the limit in the logs, the unresponsive probe is still AH-05.
    const alone = await engine.diagnose({ ...withLogText(emptyEvidence(alert), 'INFO all quiet'), probe })
    expect(alone.primary.rule.branch).toBe('AH-05')
  })
})
