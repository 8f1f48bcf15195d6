import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { collectEvidence } from '../../src/evidence/collect.js'
import { loadInventory } from '../../src/evidence/inventory.js'
import { collectLogs } from '../../src/evidence/log-collector.js'
import { countBytes, readLogTail } from '../../src/evidence/log-tail.js'
import { parseJvmMetrics } from '../../src/evidence/metrics-collector.js'
import { collectSpool } from '../../src/evidence/spool-collector.js'
import { lineLocator } from '../../src/report/log-locations.js'
import { InProcessAnalysis } from '../../src/worker/analysis/analysis-pool.js'

const root = mkdtempSync(join(tmpdir(), 'diag-evidence-'))
const outside = mkdtempSync(join(tmpdir(), 'diag-outside-'))
const logs = join(root, 'logs')
mkdirSync(logs)
writeFileSync(join(outside, 'secret.log'), 'root:x:0:0:root:/root:/bin/bash\n')

describe('log evidence (D15)', () => {
  it('takes at most 500 lines and 512 KiB from the tail of a 50 MB log', () => {
    const file = join(logs, 'huge.log')
    const fd = openSync(file, 'w')
    const line = `${'x'.repeat(99)}\n`
    const block = line.repeat(10_000) // 1 MB
    for (let i = 0; i < 50; i++) writeSync(fd, block)
    writeSync(fd, 'the last line of the file\n')
    closeSync(fd)
    const evidence = collectLogs([file], [root])
    const lines = evidence.text.split('\n')
    expect(lines).toHaveLength(500)
    expect(lines.at(-1)).toBe('the last line of the file')
    expect(Buffer.byteLength(evidence.text)).toBeLessThanOrEqual(512 * 1024)
    expect(evidence.files[0]).toMatchObject({ lines: 500, truncated: true })
  })

  it('shares the bounds across files and cuts by bytes when lines are long', () => {
    const long = join(logs, 'long.log')
    writeFileSync(long, `${'y'.repeat(10_000)}\n`.repeat(100)) // 1 MB in 100 lines
    const short = join(logs, 'short.log')
    writeFileSync(short, 'one\ntwo\n')
    const evidence = collectLogs([long, short], [root])
    expect(Buffer.byteLength(evidence.text)).toBeLessThanOrEqual(512 * 1024)
    expect(evidence.files[0]).toMatchObject({ lines: 52, truncated: true })
    // What the first file left of the 512 KiB budget is enough for the second.
    expect(evidence.files[1]).toMatchObject({ lines: 2, truncated: false })
    const full = collectLogs([long, long, short], [root])
    // 4 KiB were left for the second copy, less than one of its lines: nothing of it fits.
    expect(full.files.map((f) => [f.lines, f.truncated])).toEqual([
      [52, true],
      [0, true],
      [2, false],
    ])
    expect(Buffer.byteLength(full.text)).toBeLessThanOrEqual(512 * 1024)
  })

  it('reports missing files and refuses paths and symlinks outside the roots', () => {
    const link = join(logs, 'escape.log')
    symlinkSync(join(outside, 'secret.log'), link)
    const inside = join(logs, 'inside-link.log')
    writeFileSync(join(logs, 'real.log'), 'INFO fine\n')
    symlinkSync(join(logs, 'real.log'), inside)
    const evidence = collectLogs([join(logs, 'nope.log'), link, join(outside, 'secret.log'), inside], [root])
    expect(evidence.files.map((f) => f.error)).toEqual([
      'missing',
      'a symlink leading outside the allowed roots',
      'outside the allowed roots',
      undefined,
    ])
    expect(evidence.text).toBe('INFO fine')
    expect(evidence.text).not.toContain('root:x')
  })

  it('tolerates binary bytes and redacts secrets before anything else sees them', () => {
    const file = join(logs, 'binary.log')
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('start\n'),
        Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]),
        Buffer.from('\npassword=hunter2 end\n'),
      ]),
    )
    const evidence = collectLogs([file], [root])
    expect(evidence.text).toContain('start')
    expect(evidence.text).toContain('\ufffd')
    expect(evidence.text).not.toContain('hunter2')
  })

  it('counts lines exactly at the bounds: empty lines, a final newline, a window with no newline', () => {
    const file = join(logs, 'edges.log')
    const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')
    writeFileSync(file, `${numbered(500)}\n`)
    expect(readLogTail(file)).toMatchObject({ lines: 500, truncated: false })
    writeFileSync(file, numbered(501))
    const cut = readLogTail(file)
    expect(cut).toMatchObject({ lines: 500, truncated: true })
    expect(cut.bytes.toString().startsWith('line 2\n')).toBe(true)
    writeFileSync(file, 'a\n\n\nb\n')
    expect(readLogTail(file)).toMatchObject({ lines: 4, truncated: false })
    expect(readLogTail(file).bytes.toString()).toBe('a\n\n\nb')
    writeFileSync(file, '')
    expect(readLogTail(file)).toMatchObject({ lines: 0, truncated: false })
    // One line longer than the window: its tail is kept rather than nothing.
    writeFileSync(file, 'x'.repeat(600 * 1024))
    expect(readLogTail(file)).toMatchObject({ lines: 1, truncated: true })
    expect(readLogTail(file).bytes).toHaveLength(512 * 1024)
    // A window that starts mid-line drops that partial line.
    writeFileSync(file, `${'y'.repeat(600 * 1024)}\nlast`)
    expect(readLogTail(file).bytes.toString()).toBe('last')
  })

  it('knows the line number in the file of the first line it read, or says it did not count', () => {
    const file = join(logs, 'numbered.log')
    const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')
    writeFileSync(file, `${numbered(300)}\n`)
    expect(readLogTail(file)).toMatchObject({ lines: 300, firstLine: 1 })
    writeFileSync(file, numbered(2000)) // cut by lines
    expect(readLogTail(file)).toMatchObject({ lines: 500, firstLine: 1501 })
    writeFileSync(file, `${'z\n'.repeat(1000)}${'y'.repeat(600 * 1024)}\nlast`) // cut by bytes, mid-line
    expect(readLogTail(file)).toMatchObject({ lines: 1, firstLine: 1002 })
    // More than countBytes before the tail: not counted, the report numbers from the end.
    writeFileSync(file, `${'w'.repeat(99)}\n`.repeat(countBytes / 100 + 10_000))
    expect(readLogTail(file)).toMatchObject({ lines: 500, firstLine: null })
    const locate = lineLocator([
      { file: 'a.log', lines: 2, bytes: 10, truncated: false, firstLine: 1 },
      { file: 'gone.log', lines: 0, bytes: 0, truncated: false, error: 'missing' },
      { file: 'b.log', lines: 500, bytes: 5000, truncated: true, firstLine: null },
    ])
    expect([1, 2, 3, 502, 503].map(locate)).toEqual([
      { file: 'a.log', label: '1' },
      { file: 'a.log', label: '2' },
      { file: 'b.log', label: '499 from the end' },
      { file: 'b.log', label: '0 from the end' },
      null,
    ])
  })

  it('keeps the line count of a redacted private key block, so later lines keep their numbers', () => {
    const file = join(logs, 'key.log')
    const key = [
      '-----BEGIN PRIVATE KEY-----',
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
      'BKcwggSjAgEAAoIBAQC7',
      '-----END PRIVATE KEY-----',
    ]
    writeFileSync(file, ['before', ...key, 'after'].join('\n'))
    const text = collectLogs([file], [root]).text
    expect(text).not.toContain('MIIEvQ')
    expect(text.split('\n').indexOf('after')).toBe(5)
  })

  it('reads a file that is truncated or rotated between runs', () => {
    const file = join(logs, 'rotating.log')
    writeFileSync(file, 'old line\n'.repeat(1000))
    expect(collectLogs([file], [root]).files[0]?.lines).toBe(500)
    writeFileSync(file, 'new line after rotation\n') // truncated in place
    expect(collectLogs([file], [root]).text).toBe('new line after rotation')
    appendFileSync(file, 'appended\n')
    expect(collectLogs([file], [root]).text).toBe('new line after rotation\nappended')
  })
})

describe('spool evidence (D16)', () => {
  const spool = join(root, 'spool')
  beforeAll(() => {
    mkdirSync(spool)
    writeFileSync(
      join(spool, 'events-2026-11-22.jsonl'),
      [
        JSON.stringify({
          timestamp: '2026-11-22T04:58:00Z',
          container: 'app-01',
          exitCode: 137,
          oomKilled: true,
          event: 'die',
        }),
        JSON.stringify({ timestamp: '2026-11-22T04:59:00Z', instance: 'app-01', exitCode: 1, node: 'worker-3' }),
        JSON.stringify({ timestamp: '2026-11-22T03:00:00Z', container: 'app-01', exitCode: 1 }), // outside the window
        JSON.stringify({ timestamp: '2026-11-22T04:58:30Z', container: 'app-02', exitCode: 139 }), // another container
        '{not json',
        JSON.stringify({ container: 'app-01', exitCode: 1 }), // no timestamp
        JSON.stringify({ timestamp: '2026-11-22T04:58:40Z', container: 'app-01', exitCode: 'one' }), // wrong type
      ].join('\n'),
    )
    writeFileSync(
      join(spool, 'notes.txt'),
      JSON.stringify({ timestamp: '2026-11-22T04:58:00Z', container: 'app-01', exitCode: 2 }),
    )
  })

  it('selects valid records of the instance in the window, keeping unknown fields, counting invalid lines', () => {
    const evidence = collectSpool(spool, [root], {
      container: 'app-01',
      instance: 'app-01',
      startsAt: '2026-11-22T05:00:00Z',
    })
    expect(evidence.records).toEqual([
      { timestamp: '2026-11-22T04:58:00Z', container: 'app-01', exitCode: 137, oomKilled: true, event: 'die' },
      { timestamp: '2026-11-22T04:59:00Z', instance: 'app-01', exitCode: 1, node: 'worker-3' },
    ])
    expect(evidence).toMatchObject({ files: 1, invalidLines: 3 })
  })

  it('refuses a spool folder outside the roots', () => {
    expect(collectSpool(outside, [root], { instance: 'x', startsAt: '2026-11-22T05:00:00Z' }).error).toBe(
      'outside the allowed roots',
    )
  })
})

describe('metrics parsing (D17)', () => {
  it('reads Micrometer names, summing heap pools', () => {
    const text = `# HELP jvm_memory_used_bytes The amount of used memory
# TYPE jvm_memory_used_bytes gauge
jvm_memory_used_bytes{area="heap",id="G1 Eden Space",} 1.0E8
jvm_memory_used_bytes{area="heap",id="G1 Old Gen",} 8.5E8
jvm_memory_used_bytes{area="nonheap",id="Metaspace",} 9.0E7
jvm_memory_max_bytes{area="heap",id="G1 Eden Space",} -1.0
jvm_memory_max_bytes{area="heap",id="G1 Old Gen",} 1.0E9
jvm_threads_live_threads 212.0
jvm_gc_pause_seconds_sum{action="end of minor GC",cause="G1 Evacuation Pause",} 1.5
jvm_gc_pause_seconds_sum{action="end of major GC",cause="Allocation Failure",} 2.0`
    expect(parseJvmMetrics(text)).toEqual({
      heapUsedBytes: 9.5e8,
      heapMaxBytes: 1e9,
      heapUsedRatio: 0.95,
      threads: 212,
      gcSeconds: 3.5,
    })
  })

  it('reads JMX exporter names', () => {
    const text = `jvm_memory_bytes_used{area="heap",} 5.0E8
jvm_memory_bytes_max{area="heap",} 2.0E9
jvm_threads_current 80.0
jvm_gc_collection_seconds_sum{gc="G1 Young Generation",} 4.25`
    expect(parseJvmMetrics(text)).toEqual({
      heapUsedBytes: 5e8,
      heapMaxBytes: 2e9,
      heapUsedRatio: 0.25,
      threads: 80,
      gcSeconds: 4.25,
    })
  })
})

describe('collectEvidence', () => {
  const analysis = new InProcessAnalysis([])
  const analyzeLogs = (files: readonly string[], roots: readonly string[]) => analysis.analyzeLogs(files, roots)
  let hung: Server
  const hungSaw: string[] = []
  let app: Server
  let hungUrl: string
  let appUrl: string
  let inventoryFile: string
  beforeAll(async () => {
    // Accepts connections and never answers: what a JVM with exhausted threads does. It
    // notes each request and the moment the client gives up on it.
    hung = createServer((req) => {
      hungSaw.push(`request ${req.url}`)
      req.socket.once('close', () => hungSaw.push(`closed ${req.url}`))
    })
    app = createServer((req, res) => {
      if (req.url === '/metrics')
        res.end('jvm_memory_used_bytes{area="heap"} 950\njvm_memory_max_bytes{area="heap"} 1000\n')
      else if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end()
      else res.writeHead(503).end('{"status":"DOWN"}')
    })
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve))
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
    hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
    writeFileSync(join(logs, 'app-01.log'), 'ERROR java.lang.OutOfMemoryError: Java heap space password=topsecret\n')
    inventoryFile = join(root, 'inventory.json')
    writeFileSync(
      inventoryFile,
      JSON.stringify({
        instances: {
          'app-01': { logs: ['logs/app-01.log'], metricsUrl: `${appUrl}/metrics`, healthUrl: `${appUrl}/health` },
          'app-hung': { metricsUrl: `${hungUrl}/metrics`, healthUrl: `${hungUrl}/health` },
          'app-redirect': { healthUrl: `${appUrl}/redirect` },
          'app-down': { healthUrl: 'http://127.0.0.1:1/health', logs: ['logs/missing.log'] },
        },
      }),
    )
  })
  afterAll(() => {
    hung.closeAllConnections()
    hung.close()
    app.close()
  })
  const alert = (instance: string) => ({
    alertname: 'A',
    instance,
    severity: 'critical',
    startsAt: '2026-11-22T05:00:00Z',
  })

  it('collects logs, metrics and the probe of a known instance into facts', async () => {
    const {
      evidence: facts,
      summary,
      logsRead,
    } = await collectEvidence(alert('app-01'), loadInventory(inventoryFile), { httpTimeoutMs: 2000, analyzeLogs })
    expect(facts.available).toBe(true)
    expect(logsRead).toBe(true)
    const matches = 'matches' in facts.log ? facts.log.matches : new Map()
    expect(matches.get('OutOfMemoryError: Java heap space')?.text).toBe(
      'ERROR java.lang.OutOfMemoryError: Java heap space password=[REDACTED]',
    )
    expect(facts.metrics.heapUsedRatio).toBe(0.95)
    expect(facts.probe).toMatchObject({ outcome: 'http_error', statusCode: 503 })
    expect(summary.instanceKnown).toBe(true)
  })

  it('costs a hung metrics or health endpoint at most its timeout', async () => {
    hungSaw.length = 0
    const { evidence: facts, summary } = await collectEvidence(alert('app-hung'), loadInventory(inventoryFile), {
      httpTimeoutMs: 300,
      analyzeLogs,
    })
    // Counted, not clocked: both requests were in flight together (one time-out for the
    // two, however slow the host), and both were given up by the client, not answered.
    await vi.waitFor(() => expect(hungSaw).toHaveLength(4), { timeout: 10_000 })
    expect(hungSaw.slice(0, 2).sort()).toEqual(['request /health', 'request /metrics'])
    expect(hungSaw.slice(2).sort()).toEqual(['closed /health', 'closed /metrics'])
    expect(facts.probe.outcome).toBe('timeout')
    expect(summary.metrics).toMatchObject({ status: 'unavailable', error: expect.stringMatching(/^timeout/) })
    expect(facts.available).toBe(true) // a probe that times out is evidence (AH-05)
  })

  it('follows no redirect', async () => {
    const { evidence: facts } = await collectEvidence(alert('app-redirect'), loadInventory(inventoryFile), {
      httpTimeoutMs: 1000,
      analyzeLogs,
    })
    expect(facts.probe).toMatchObject({ outcome: 'http_error', statusCode: 302 })
  })

  it('gives no evidence when every source fails, and for unknown or hostile instances', async () => {
    const inventory = loadInventory(inventoryFile)
    const down = await collectEvidence(alert('app-down'), inventory, { httpTimeoutMs: 1000, analyzeLogs })
    expect(down.evidence.available).toBe(false)
    expect(down.evidence.probe.outcome).toBe('refused')
    for (const instance of ['app-02', '../../etc/passwd', '__proto__', 'constructor', `app-01\r\nX: y`]) {
      const { evidence: facts, summary } = await collectEvidence(alert(instance), inventory, {
        httpTimeoutMs: 1000,
        analyzeLogs,
      })
      expect(facts.available).toBe(false)
      expect(summary.instanceKnown).toBe(false)
    }
  })
})
