import { describe, expect, it } from 'vitest'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { DiagnosisEngine } from '../../src/rules/diagnosis-engine.js'
import { almostMatchedMember, type RuleExplanation } from '../../src/rules/explanation.js'
import { offlineCustomRule } from '../../src/rules/rule-input.js'
import type { Evidence } from '../../src/rules/types.js'
import { validRule } from '../helpers/rule-input.js'

// "Why this branch" (docs/design.md): the rules that matched or almost matched, with their
// conditions as json-rules-engine evaluated them, and why the primary outranked the others.

const alert = { alertname: 'OrdersBatchFailed', instance: 'app-01', severity: 'critical' }
const { rules: builtins, versions } = loadBuiltinRules()
const engine = (...custom: Parameters<typeof offlineCustomRule>[0][]) =>
  new DiagnosisEngine(
    builtins,
    versions,
    custom.map((body, i) => offlineCustomRule(body, i + 1, 'test', '2026-01-01T00:00:00.000Z')),
  )
const rule = (explained: RuleExplanation[], branch: string) => explained.find((r) => r.branch === branch)

describe('the explanation of a diagnosis', () => {
  it('names each matched rule with its conditions, the fact values and the results, primary first', async () => {
    const evidence: Evidence = {
      ...withLogText(emptyEvidence(alert), 'x\njava.lang.OutOfMemoryError: Java heap space\ny\n'),
      metrics: { heapUsedRatio: 0.95, threads: 40 },
    }
    const diagnosis = await engine().diagnose(evidence)
    const explanation = diagnosis.explanation
    expect(explanation?.rules[0]).toMatchObject({
      branch: 'TD-02',
      outcome: 'matched',
      classification: 'confirmed_cause',
      corroborated: true,
      failedMember: null,
    })
    const td02 = rule(explanation?.rules ?? [], 'TD-02')
    const [signature, corroboration] = td02?.conditions.all ?? []
    const log = signature?.any?.find((c) => c.fact === 'log')
    expect(log).toMatchObject({ operator: 'matches', result: true })
    expect(log?.actual).toEqual([
      {
        pattern: 'OutOfMemoryError: Java heap space',
        line: 2,
        text: 'java.lang.OutOfMemoryError: Java heap space',
        repeated: false,
      },
    ])
    const heap = JSON.stringify(corroboration)
    expect(heap).toContain('"path":"$.heapUsedRatio"')
    expect(heap).toContain('"actual":0.95')
    // GC-04 (heap ≥ 90 %) matched too, and ranks after the confirmed cause because it is probable.
    expect(explanation?.ranking.find((r) => r.branch === 'GC-04')).toEqual({
      rule: 'builtin-GC-04',
      branch: 'GC-04',
      criterion: 'earned',
      first: 'confirmed_cause',
      second: 'probable_cause',
    })
  })

  it('says which single condition kept a rule from matching (almost matched), and leaves out the fallbacks', async () => {
    // AH-04: the probe answered an HTTP error, and the log names an OS limit: its `not` failed.
    const evidence: Evidence = {
      ...withLogText(emptyEvidence(alert), 'java.io.IOException: Too many open files\n'),
      probe: { outcome: 'http_error', statusCode: 503, latencyMs: 12 },
    }
    const { explanation, primary } = await engine().diagnose(evidence)
    expect(primary.rule.branch).toBe('TD-06')
    const ah04 = rule(explanation?.rules ?? [], 'AH-04')
    expect(ah04).toMatchObject({ outcome: 'almost_matched', failedMember: 1 })
    expect(ah04?.conditions.all?.[0]).toMatchObject({ path: '$.outcome', actual: 'http_error', result: true })
    // TD-08 failed only because another rule matched: not "almost".
    expect(rule(explanation?.rules ?? [], 'TD-08')).toBeUndefined()
    // TD-01 failed its signature; its `not` holding alone finds nothing: not "almost".
    expect(rule(explanation?.rules ?? [], 'TD-01')).toBeUndefined()
  })

  it('a scoped custom rule whose pattern matched on another alert almost matched, its alertname failed', async () => {
    const scoped = validRule({ ruleId: 'SomethingElse', classification: 'PROBABLE_CAUSE', confidence: 'MEDIUM' })
    const { explanation } = await engine(scoped).diagnose(
      withLogText(emptyEvidence(alert), 'LedgerLockTimeout: lock on account 42 not granted\n'),
    )
    const custom = rule(explanation?.rules ?? [], 'TD-19')
    expect(custom).toMatchObject({ rule: 1, outcome: 'almost_matched', failedMember: 1 })
    expect(custom?.conditions.all?.[1]).toMatchObject({
      fact: 'alert',
      path: '$.alertname',
      value: 'SomethingElse',
      actual: 'OrdersBatchFailed',
      result: false,
    })
  })

  it('the definition: one failed member of two or more, the others held, one of them by finding something', () => {
    const held = { fact: 'probe', operator: 'equal', result: true }
    const failed = { fact: 'log', operator: 'matches', result: false }
    const notHeld = { not: { fact: 'log', operator: 'matches', result: false }, result: true }
    expect(almostMatchedMember({ all: [held, failed], result: false })).toBe(1)
    expect(almostMatchedMember({ all: [failed, failed, held], result: false })).toBeNull()
    expect(almostMatchedMember({ all: [failed], result: false })).toBeNull()
    expect(almostMatchedMember({ all: [failed, notHeld], result: false })).toBeNull()
    expect(almostMatchedMember({ any: [held, failed], result: false })).toBeNull()
    expect(
      almostMatchedMember({ all: [held, { fact: 'findings', operator: 'equal', result: false }], result: false }),
    ).toBeNull()
    // Not evaluated is not "held".
    expect(almostMatchedMember({ all: [{ ...held, result: null }, failed], result: false })).toBeNull()
  })

  it('is left out when not asked for', async () => {
    const diagnosis = await engine().diagnose(withLogText(emptyEvidence(alert), 'ok\n'), { explain: false })
    expect(diagnosis.explanation).toBeNull()
    expect(diagnosis.primary.rule.branch).toBe('TD-08')
  })
})
