import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { EvidenceSummary } from '../../src/evidence/collect.js'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { logBounds } from '../../src/evidence/log-tail.js'
import { packageRoot } from '../../src/paths.js'
import { diagnosisModel } from '../../src/report/report-model.js'
import { loadTemplates } from '../../src/report/templates.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { DiagnosisEngine } from '../../src/rules/diagnosis-engine.js'
import { offlineCustomRule, readRulepack } from '../../src/rules/rule-input.js'
import { seedPrincipal, seedRulepackFile } from '../../src/rules/seed.js'
import type { Evidence } from '../../src/rules/types.js'

// What a report says of its finding: which facts corroborated it (those that held, not
// those that could have), whose rule it is, and how to fetch its incident.

const identity = { alertname: 'AppServerHealthCheckFailing', instance: 'app-01', severity: 'critical' }
const createdAt = '2026-11-22T00:00:00.000Z'
const seed = readRulepack(seedRulepackFile).map((body, i) => offlineCustomRule(body, i + 1, seedPrincipal, createdAt))
const operatorRule = offlineCustomRule(
  {
    branch: 'IMP-01',
    ruleName: 'FeedFileMalformed',
    category: 'application_lifecycle',
    targetSource: 'local_file',
    pattern: 'FeedParseException: malformed record',
    assessment: 'The order importer stopped on a malformed feed file.',
    classification: 'probable_cause',
    confidence: 'medium',
    recommendedActions: ['Find the feed file.'],
  },
  11,
  'ops-token',
  createdAt,
)
const { rules: builtins, versions } = loadBuiltinRules()
const engine = new DiagnosisEngine(builtins, versions, [...seed, operatorRule])
const templates = loadTemplates(join(packageRoot, 'templates'))

const summary = (evidence: Partial<EvidenceSummary>): EvidenceSummary => ({
  instanceKnown: true,
  logs: [{ file: '/var/log/app-01/catalina.out', lines: 3, bytes: 300, truncated: false, firstLine: 1 }],
  spool: null,
  metrics: null,
  probe: null,
  bounds: { ...logBounds, httpTimeoutMs: 3000 },
  ...evidence,
})

async function report(log: string, facts: Partial<Evidence>, evidence: Partial<EvidenceSummary>) {
  const diagnosis = await engine.diagnose({ ...withLogText(emptyEvidence(identity), log), ...facts })
  const model = diagnosisModel({
    alert: {
      eventId: '01a2c0de-0000-7000-8000-000000000001',
      incidentId: '01a2c0de-0000-7000-8000-000000000002',
      ...identity,
      status: 'firing',
      startsAt: createdAt,
      receivedAt: createdAt,
      fingerprint: '0123456789abcdef',
      labels: { alertname: identity.alertname },
      annotations: {},
      generatorURL: null,
    },
    diagnosis,
    evidence: summary(evidence),
    logsRead: true,
    lifecycle: null,
    version: '0.0.0',
    now: new Date(createdAt),
  })
  return { model, ...templates.diagnosis(model) }
}

const oom = 'SEVERE [http-nio-8080-exec-4] java.lang.OutOfMemoryError: Java heap space'

describe('the wording of a report', () => {
  it('names the facts that corroborated the finding, only those that held', async () => {
    const probe = { outcome: 'timeout' as const, statusCode: null, latencyMs: null }
    const { model, text, html } = await report(
      oom,
      { probe, metrics: { heapUsedRatio: 0.95, threads: 40 } },
      { probe: { ...probe, latencyMs: 3000 } },
    )
    expect(model.primary).toMatchObject({ branch: 'TD-02', classification: 'confirmed_cause', origin: 'built-in' })
    // Held: the probe and the heap (TD-02's own corroboratedBy). Not held, so not named: a
    // repeat, a container event, the GC log.
    expect(model.primary.corroboratedBy.sort()).toEqual(['the health probe timed out', 'the heap 95 % full (metrics)'])
    expect(text).toMatch(
      /^ {2}Confidence: its signature, corroborated by: (?:the health probe timed out|the heap 95 % full \(metrics\)); (?:the health probe timed out|the heap 95 % full \(metrics\))\.$/m,
    )
    expect(text).not.toContain('a failing probe, a metric, or a container event')
    expect(html).toContain('<p>Confidence: its signature, corroborated by: ')
  })

  it('names a repeated signature, an HTTP status of the probe and a container crash', async () => {
    const probe = { outcome: 'http_error' as const, statusCode: 503, latencyMs: 12 }
    const container = { events: 2, oomKilled: false, crashExits: 2, errorExits: 0, exitCodes: [134, 134] }
    const { model } = await report(`${oom}\n${oom}`, { probe, container }, { probe })
    expect(model.primary.corroboratedBy.sort()).toEqual([
      '2 container crashes (exit code 134 or 139)',
      'exceptions meaning heap-exhausted on more than one record (the exception reader)',
      'its signature on more than one log line',
      'the health probe answered HTTP 503',
    ])
  })

  it('says what is missing when nothing corroborated the signature', async () => {
    const { model, text } = await report(oom, {}, {})
    expect(model.primary).toMatchObject({ branch: 'TD-02', classification: 'probable_cause', corroboratedBy: [] })
    expect(text).toContain('Confidence: its signature alone: one line, and no repeat, probe, metric or container event')
  })

  it('labels the seed rules "seed rule" and the rules of an operator "custom rule"', async () => {
    const seeded = await report('java.lang.StackOverflowError\njava.lang.StackOverflowError', {}, {})
    const stackOverflow = seed.find((rule) => rule.branch === 'TD-11')
    expect(seeded.text).toContain(`Primary finding: TD-11 StackOverflow [seed rule ${stackOverflow?.id}]`)
    expect(seeded.html).toContain(`(seed rule <code>${stackOverflow?.id}</code>)`)
    const custom = await report('FeedParseException: malformed record at line 4711', {}, {})
    expect(custom.text).toContain('Primary finding: IMP-01 FeedFileMalformed [custom rule 11]')
  })

  it('shows heap in bytes and percent, GC time as a rate, and the command that fetches the incident', async () => {
    const metrics = {
      status: 'ok' as const,
      heapUsedBytes: 1992294400,
      heapMaxBytes: 2147483648,
      heapUsedRatio: 0.928,
      threads: 212,
      gcSeconds: 1234.5,
      gcRate: { windowSeconds: 5, gcSeconds: 3.1, ratio: 0.62 },
    }
    const { text, html } = await report(oom, {}, { metrics })
    expect(text).toContain(
      'Metrics: heap used 1,900 MiB of 2,048 MiB (93 %), 212 live threads, GC 3.1 s of the 5 s between two reads (62 % of the time)',
    )
    expect(text).not.toContain('1234.5')
    expect(html).toContain('<li>Metrics: heap used 1,900 MiB of 2,048 MiB (93 %), 212 live threads, GC 3.1 s')
    expect(text).toContain('Show the incident: appserver-diag incidents show 01a2c0de-0000-7000-8000-000000000002\n')
    expect(html).toContain('<code>appserver-diag incidents show 01a2c0de-0000-7000-8000-000000000002</code>')
  })
})
