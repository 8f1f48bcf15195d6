import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { collectEvidence } from '../../src/evidence/collect.js'
import { loadInventory } from '../../src/evidence/inventory.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { encodeBundle } from '../../src/rules/bundle/bundle-bounds.js'
import { decodeBundle, decodeBundleSync, maxBundleBytes } from '../../src/rules/bundle/evidence-bundle.js'
import { replayEvidence } from '../../src/rules/bundle/replay-evidence.js'
import { DiagnosisEngine } from '../../src/rules/diagnosis-engine.js'
import { engineFacts } from '../../src/rules/facts.js'
import { InProcessAnalysis } from '../../src/worker/analysis/in-process-analysis.js'

// The stored evidence bundle (docs/design.md, "Stored evidence"): the engine's inputs exactly
// as the diagnosis had them, compressed within 512 KiB, and what the bound drops first.

const alert = {
  alertname: 'AppServerHealthCheckFailing',
  instance: 'app-01',
  severity: 'critical',
  startsAt: '2026-11-22T05:00:00Z',
}
const { rules, versions } = loadBuiltinRules()

/** An instance whose one log file holds `text`, collected and analysed as the worker does. */
async function collected(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'diag-bundle-'))
  mkdirSync(join(dir, 'logs'))
  writeFileSync(join(dir, 'logs', 'app.log'), text)
  writeFileSync(join(dir, 'inventory.json'), JSON.stringify({ instances: { 'app-01': { logs: ['logs/app.log'] } } }))
  const analysis = new InProcessAnalysis([])
  const evidence = await collectEvidence(alert, loadInventory(join(dir, 'inventory.json')), {
    httpTimeoutMs: 1000,
    analyzeLogs: (files, roots) => analysis.analyzeLogs(files, roots),
  })
  return { ...evidence, engine: analysis.engine }
}

const ordinary = (i: number) =>
  `2026-11-22 04:5${i % 10}:00,${String(i % 1000).padStart(3, '0')} INFO  [exec-${i % 200}] com.example.OrderService - processed order ${100000 + i}`
const failing = [
  ...Array.from({ length: 300 }, (_, i) => ordinary(i)),
  'db.password=hunter2-very-secret',
  'java.lang.OutOfMemoryError: Java heap space',
  '\tat com.example.Export.render(Export.java:212)',
  'Caused by: java.net.ConnectException: Connection refused',
  ...Array.from({ length: 100 }, (_, i) => ordinary(i + 300)),
].join('\n')

/** The engine's facts with the log's matches as entries, to compare. */
const comparable = (facts: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(facts, (_key, value) => (value instanceof Map ? [...value] : value))) as unknown

describe('the evidence bundle', () => {
  it('gives a replay exactly the engine inputs of the diagnosis, redacted, and the same diagnosis', async () => {
    const { evidence, excerpt, summary, engine } = await collected(failing)
    const original = await engine.diagnose(evidence)
    const bundle = await encodeBundle({ evidence, excerpt, values: { ...summary } })
    expect(bundle).toMatchObject({ encoding: 'br', format: 1, truncated: false })
    expect(bundle.bytes.length).toBeLessThan(bundle.rawBytes)

    const decoded = await decodeBundle(bundle.bytes)
    expect(decodeBundleSync(bundle.bytes).header).toEqual(decoded.header)
    expect(decoded.excerpt?.equals(excerpt as Buffer)).toBe(true)
    expect(decoded.excerpt?.toString()).not.toContain('hunter2')
    // A separate engine, built as a replay builds it: the same facts, the same findings.
    const other = new DiagnosisEngine(rules, versions)
    const replayed = replayEvidence(decoded, (e) => other.scanExcerpt(e))
    expect(comparable(engineFacts(replayed))).toEqual(comparable(engineFacts(evidence)))
    const again = await other.diagnose(replayed)
    expect(again.matches.map((m) => [m.rule.branch, m.classification])).toEqual(
      original.matches.map((m) => [m.rule.branch, m.classification]),
    )
    expect(again.explanation).toEqual(original.explanation)
  })

  it('a pattern the diagnosis did not have finds its line in the stored excerpt', async () => {
    const { evidence, excerpt, summary } = await collected(failing)
    const decoded = await decodeBundle((await encodeBundle({ evidence, excerpt, values: { ...summary } })).bytes)
    const other = new DiagnosisEngine(rules, versions)
    const replayed = replayEvidence(decoded, (e) => {
      const found = other.scanExcerpt(e)
      expect(found.size).toBeGreaterThan(0)
      return found
    })
    if (!('matches' in replayed.log)) throw new Error('a scanned log')
    expect(replayed.log.matches.get('OutOfMemoryError: Java heap space')?.line).toBe(302)
  })

  it('stays within 512 KiB when the excerpt does not compress: its oldest lines go first, the facts stay whole', async () => {
    // 500 lines of random base64 (about 480 KiB) that no compressor shrinks much.
    const noise = Array.from({ length: 500 }, () => randomBytes(720).toString('base64')).join('\n')
    const { evidence, excerpt, summary } = await collected(`${noise}\njava.lang.OutOfMemoryError: Java heap space\n`)
    const limit = 128 * 1024
    const bundle = await encodeBundle({ evidence, excerpt, values: { ...summary } }, limit)
    expect(bundle.truncated).toBe(true)
    expect(bundle.bytes.length).toBeLessThanOrEqual(limit)
    const decoded = await decodeBundle(bundle.bytes)
    expect(decoded.header.dropped).toEqual(['excerpt_head'])
    const kept = decoded.header.excerpt
    expect(kept?.droppedLines).toBeGreaterThan(100)
    expect((kept?.bytes ?? 0) + (kept?.droppedBytes ?? 0)).toBe(excerpt?.length)
    // The kept lines are the newest, whole lines; the stored matches are those of the whole excerpt.
    expect(excerpt?.subarray(excerpt.length - (kept?.bytes ?? 0)).equals(decoded.excerpt as Buffer)).toBe(true)
    const other = new DiagnosisEngine(rules, versions)
    const replayed = replayEvidence(decoded, (e) => other.scanExcerpt(e))
    expect(comparable(engineFacts(replayed))).toEqual(comparable(engineFacts(evidence)))
    expect(maxBundleBytes).toBe(512 * 1024)
  })

  it('drops the excerpt, then the matches context lines, when even the facts are too large', async () => {
    const { evidence, excerpt, summary } = await collected(failing)
    const bundle = await encodeBundle({ evidence, excerpt, values: { ...summary } }, 600)
    const decoded = await decodeBundle(bundle.bytes)
    expect(decoded.header.dropped.slice(0, 2)).toEqual(['excerpt', 'match_context'])
    expect(decoded.excerpt).toBeNull()
    if (decoded.header.log.kind !== 'scanned') throw new Error('scanned')
    for (const [, match] of decoded.header.log.matches) expect(match.context).toEqual([])
  })
})
