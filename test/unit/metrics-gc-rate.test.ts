import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectMetrics } from '../../src/evidence/metrics-collector.js'
import { gcRateWords, metricsFacts } from '../../src/report/runtime-words.js'

// GC time as a rate: the counter is a total since the JVM started, so it is read twice and
// the report gives what was spent between the two reads (docs/design.md, "Evidence").

/** A JMX-exporter exposition whose GC counter is what `gc(n)` says at its nth read. */
function exporter(gc: (n: number) => number | null, status = (_n: number) => 200) {
  let reads = 0
  return createServer((_req, res) => {
    reads++
    const seconds = gc(reads)
    res
      .writeHead(status(reads))
      .end(
        [
          'jvm_memory_bytes_used{area="heap",} 1.9922944E9',
          'jvm_memory_bytes_max{area="heap",} 2.147483648E9',
          'jvm_threads_current 212.0',
          ...(seconds === null ? [] : [`jvm_gc_collection_seconds_sum{gc="G1 Old Generation",} ${seconds}`]),
        ].join('\n'),
      )
  })
}

describe('the GC time of the metrics endpoint, over the window between two reads', () => {
  const servers: Server[] = []
  const urlOf = async (server: Server) => {
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`
  }
  let climbing: string
  beforeAll(async () => {
    // 120 s of GC since the start, then 2.5 s more by the second read.
    climbing = await urlOf(exporter((n) => (n === 1 ? 120 : 122.5)))
  })
  afterAll(() => {
    for (const server of servers) server.close()
  })

  it('counts the GC seconds between the two reads, not the total since the JVM started', async () => {
    const metrics = await collectMetrics(climbing, 2000, 100)
    expect(metrics).toMatchObject({ status: 'ok', gcSeconds: 120, heapUsedBytes: 1992294400, threads: 212 })
    const rate = metrics.gcRate
    expect(rate?.gcSeconds).toBe(2.5)
    // The window is measured (at least the interval); the ratio is the GC seconds over it.
    expect(rate?.windowSeconds).toBeGreaterThanOrEqual(0.1)
    expect(rate?.ratio).toBeCloseTo(2.5 / (rate?.windowSeconds ?? 1), 2)
    expect(metricsFacts(metrics)).toEqual([
      'heap used 1,900 MiB of 2,048 MiB (93 %)',
      '212 live threads',
      gcRateWords(rate as NonNullable<typeof rate>),
    ])
  })

  it('words the rate as seconds of the window and a share of the time', () => {
    expect(gcRateWords({ windowSeconds: 5, gcSeconds: 3.1, ratio: 0.62 })).toBe(
      'GC 3.1 s of the 5 s between two reads (62 % of the time)',
    )
    expect(gcRateWords({ windowSeconds: 5.04, gcSeconds: 0, ratio: 0 })).toBe(
      'GC 0 s of the 5 s between two reads (0 % of the time)',
    )
  })

  it('says why the rate is unknown: a failed second read, a counter that fell (a restart)', async () => {
    const failing = await urlOf(
      exporter(
        () => 10,
        (n) => (n === 1 ? 200 : 503),
      ),
    )
    const failed = await collectMetrics(failing, 2000, 10)
    expect(failed.status).toBe('ok')
    expect(failed.gcRate).toMatchObject({ gcSeconds: null, ratio: null, why: 'the second read failed (HTTP 503)' })
    expect(gcRateWords(failed.gcRate as NonNullable<typeof failed.gcRate>)).toMatch(
      /^GC time over the [\d.]+ s between two reads unknown: the second read failed \(HTTP 503\)$/,
    )
    const restarted = await urlOf(exporter((n) => (n === 1 ? 300 : 0.4)))
    expect((await collectMetrics(restarted, 2000, 10)).gcRate?.why).toBe(
      'the GC counter fell between the reads (a restart?)',
    )
  })

  it('reads once when no GC counter is exposed, and words a result stored before the rate as a total', async () => {
    let reads = 0
    const noGc = await urlOf(
      createServer((_req, res) => {
        reads++
        res.end('jvm_threads_current 7.0\n')
      }),
    )
    const metrics = await collectMetrics(noGc, 2000, 10)
    expect(reads).toBe(1)
    expect(metrics.gcRate).toBeNull()
    expect(metricsFacts(metrics)).toEqual(['7 live threads'])
    const stored = { ...metrics, gcSeconds: 3.5, heapUsedRatio: 0.95 }
    delete stored.gcRate
    expect(metricsFacts(stored)).toEqual([
      'heap used 95 % of its maximum',
      '7 live threads',
      'GC 3.5 s in total since the JVM started',
    ])
  })
})
