import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectEvidence } from '../../src/evidence/collect.js'
import { loadInventory } from '../../src/evidence/inventory.js'
import { AnalysisTimeoutError } from '../../src/evidence/log-analysis.js'
import type { SourceFailure } from '../../src/evidence/source-failures.js'
import { InProcessAnalysis } from '../../src/worker/analysis/analysis-pool.js'

// diagnostic_evidence_source_failures_total{source, reason}: what collectEvidence counts
// for real sources that fail, each for its own reason, and what it does not count.

const root = mkdtempSync(join(tmpdir(), 'diag-source-failures-'))
const analysis = new InProcessAnalysis([])
const analyzeLogs = (files: readonly string[], roots: readonly string[]) => analysis.analyzeLogs(files, roots)
const servers: Server[] = []

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

let inventoryFile: string
beforeAll(async () => {
  mkdirSync(join(root, 'logs', 'a-directory.log'), { recursive: true })
  writeFileSync(join(root, 'logs', 'long.log'), 'INFO a line\n'.repeat(600))
  writeFileSync(join(root, 'logs', 'ok.log'), 'ERROR java.lang.OutOfMemoryError: Java heap space\n')
  const failing = await serve((req, res) => {
    if (req.url === '/metrics-500') res.writeHead(500).end()
    else if (req.url === '/metrics-not-jvm') res.end('http_requests_total 3\n')
    else res.writeHead(503).end('{"status":"DOWN"}')
  })
  const hung = await serve(() => {})
  inventoryFile = join(root, 'inventory.json')
  writeFileSync(
    inventoryFile,
    JSON.stringify({
      instances: {
        gaps: {
          logs: ['logs/missing.log', 'logs/a-directory.log', '/etc/hostname'],
          spoolDir: 'no-spool',
          metricsUrl: `${failing}/metrics-500`,
          healthUrl: 'http://127.0.0.1:1/health',
        },
        hung: { metricsUrl: `${hung}/metrics`, healthUrl: `${hung}/health` },
        'not-jvm': { metricsUrl: `${failing}/metrics-not-jvm` },
        // Read to the bounds by the first file, the second is left unread: not a failure.
        // A probe answered 503 is evidence of an unhealthy application, not a failing source.
        healthy: { logs: ['logs/long.log', 'logs/ok.log'], healthUrl: `${failing}/health` },
      },
    }),
  )
})
afterAll(() => {
  for (const server of servers) {
    server.closeAllConnections()
    server.close()
  }
})

async function failuresOf(
  instance: string,
  analyze: typeof analyzeLogs = analyzeLogs,
  httpTimeoutMs = 2000,
): Promise<SourceFailure[]> {
  const counted: SourceFailure[] = []
  await collectEvidence(
    { alertname: 'A', instance, severity: 'critical', startsAt: '2026-11-22T05:00:00Z' },
    loadInventory(inventoryFile),
    { httpTimeoutMs, analyzeLogs: analyze, failures: { inc: (labels) => counted.push(labels) } },
  )
  return counted.sort((a, b) => `${a.source}${a.reason}`.localeCompare(`${b.source}${b.reason}`))
}

describe('evidence source failures', () => {
  it('counts each failing source once, by source and reason', async () => {
    expect(await failuresOf('gaps')).toEqual([
      { source: 'log', reason: 'missing' },
      { source: 'log', reason: 'not_regular_file' },
      { source: 'log', reason: 'outside_roots' },
      { source: 'metrics', reason: 'http_status' },
      { source: 'probe', reason: 'refused' },
      { source: 'spool', reason: 'missing' },
    ])
  })

  it('counts endpoints that never answer as timeouts, and metrics without JVM facts', async () => {
    expect(await failuresOf('hung', analyzeLogs, 300)).toEqual([
      { source: 'metrics', reason: 'timeout' },
      { source: 'probe', reason: 'timeout' },
    ])
    expect(await failuresOf('not-jvm')).toEqual([{ source: 'metrics', reason: 'no_jvm_metrics' }])
  })

  it('counts an instance the inventory does not name', async () => {
    expect(await failuresOf('app-99')).toEqual([{ source: 'inventory', reason: 'unknown_instance' }])
  })

  it('counts nothing for a file left unread at the bounds or for an unhealthy answer', async () => {
    expect(await failuresOf('healthy')).toEqual([])
  })

  it('counts every log of an analysis stopped at its bound as a timeout', async () => {
    const stopped = async () => Promise.reject(new AnalysisTimeoutError('cpu', 10_000))
    expect(await failuresOf('healthy', stopped)).toEqual([
      { source: 'log', reason: 'timeout' },
      { source: 'log', reason: 'timeout' },
    ])
  })
})
