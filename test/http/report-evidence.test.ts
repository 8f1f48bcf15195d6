import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// What section 4 and 5 of a report show of the evidence: each matched line with its file
// and its line in that file, the GC events of the logs, and the container events' fields.

const lines = (count: number, line: (n: number) => string) => Array.from({ length: count }, (_, i) => line(i + 1))

describe('the evidence a report shows', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-report-'))
  const first = join(dir, 'logs', 'catalina.out')
  const second = join(dir, 'logs', 'app.log')
  let t: TestService
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let metrics: Server

  beforeAll(async () => {
    mkdirSync(join(dir, 'logs'))
    mkdirSync(join(dir, 'spool'))
    // Ten lines; line 7 is the heap exhaustion, lines 3 and 4 two full collections.
    const catalina = lines(10, (n) => `22-Nov-2026 04:55:0${n % 10}.000 INFO [main] o.a.c.Startup step ${n}`)
    catalina[2] =
      '[2026-11-22T04:55:01.001+0000][info][gc] GC(7) Pause Full (Allocation Failure) 1980M->1975M(2048M) 1234.500ms'
    catalina[3] =
      '[2026-11-22T04:55:03.001+0000][info][gc] GC(8) Pause Full (Allocation Failure) 1990M->1985M(2048M) 1500.250ms'
    catalina[6] = '22-Nov-2026 04:55:07.114 SEVERE [http-nio-8080-exec-4] java.lang.OutOfMemoryError: Java heap space'
    writeFileSync(first, `${catalina.join('\n')}\n`)
    // 2,000 lines of which the tail holds the last 490 (500 lines in all, D15); line 1990
    // is the file-descriptor exhaustion.
    const app = lines(2000, (n) => `2026-11-22 04:5${n % 10}:00,000 INFO [worker-${n}] c.e.Batch - processed item ${n}`)
    app[1989] =
      '2026-11-22 04:59:59,000 ERROR [acceptor] o.a.t.u.n.NioEndpoint - java.io.IOException: Too many open files'
    writeFileSync(second, `${app.join('\n')}\n`)
    writeFileSync(
      join(dir, 'spool', 'events.jsonl'),
      `${JSON.stringify({
        timestamp: '2026-11-22T04:58:00Z',
        container: 'app-01',
        event: 'health_status',
        health: 'unhealthy',
        reason: 'probe timed out',
        exitCode: null,
      })}\n`,
    )
    // A JMX exporter whose GC counter, 4,000 s since the JVM started, grows by 2.5 s between reads.
    let reads = 0
    metrics = createServer((_req, res) => {
      reads++
      res.end(
        [
          'jvm_memory_bytes_used{area="heap",} 2.08666624E9',
          'jvm_memory_bytes_max{area="heap",} 2.147483648E9',
          'jvm_threads_current 212.0',
          `jvm_gc_collection_seconds_sum{gc="G1 Old Generation",} ${reads === 1 ? 4000 : 4002.5}`,
        ].join('\n'),
      )
    })
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve))
    const metricsUrl = `http://127.0.0.1:${(metrics.address() as AddressInfo).port}/metrics`
    writeFileSync(
      join(dir, 'inventory.json'),
      JSON.stringify({
        instances: {
          'app-01': { logs: ['logs/catalina.out', 'logs/app.log'], spoolDir: 'spool', container: 'app-01', metricsUrl },
        },
      }),
    )
    smtp = await startSmtp()
    t = await build({ DIAG_SMTP_URL: smtp.url, DIAG_INVENTORY: join(dir, 'inventory.json') })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
    metrics.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('names the file and the line in that file of every match, and shows GC and container events', async () => {
    const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook([alert({ id: 'report-1' })]) })
    expect(res.status).toBe(202)
    const eventId: string = res.json().events[0].eventId
    const mail = await waitFor(() => smtp.mailsOf(eventId)[0])
    const text = mail.text ?? ''
    const html = String(mail.html)

    expect(text).toMatch(
      new RegExp(`Matched by TD-02 in ${first}:\\n(?:.*\\n)*?  >> 7: .*OutOfMemoryError: Java heap space`),
    )
    expect(text).toMatch(new RegExp(`Matched by \\S+ in ${second}:\\n(?:.*\\n)*?  >> 1990: .*Too many open files`))
    // Context lines are numbered in their file too, and never come from the other file.
    expect(text).toContain('   1987: 2026-11-22 04:57:00,000 INFO [worker-1987]')
    expect(text).not.toMatch(/ {3}(?:11|12|13): /)
    expect(html).toContain(`in <code>${first}</code>`)
    expect(html).toMatch(/<strong[^>]*>1990: [^<]*Too many open files/)

    expect(text).toContain(
      'Garbage collection (in the log excerpt): 2 collections, 2 full (2 left the heap 90 % full or more); ' +
        'pauses 2734.75 ms in total, the longest 1500.25 ms; heap after the last collection 1,985 MiB of 2,048 MiB (97 %)',
    )
    expect(text).toContain('2026-11-22T04:58:00Z app-01 health_status health=unhealthy reason=probe timed out')

    // The heap in bytes and percent, GC time over the window between the two reads.
    expect(text).toMatch(
      /^Metrics: heap used 1,990 MiB of 2,048 MiB \(97 %\), 212 live threads, GC 2\.5 s of the [\d.]+ s between two reads \(\d+ % of the time\)$/m,
    )
    expect(text).not.toContain('4000')
    // TD-02 found on one line, corroborated by what held: the full collections of the GC log
    // (its own corroboratedBy), and the heap the metrics show 97 % full.
    expect(text).toMatch(/^Primary finding: TD-02 JavaHeapExhausted \[built-in rule builtin-TD-02\]$/m)
    expect(text).toContain(
      '  Confidence: its signature, corroborated by: the heap 97 % full (metrics); 2 full collections that left the heap 90 % full or more (GC log).',
    )
    const incidentId: string = res.json().events[0].incidentId
    expect(text).toContain(`Show the incident: appserver-diag incidents show ${incidentId}\n`)
    expect(html).toContain('app-01: <strong>health_status</strong>, health unhealthy, reason probe timed out')
  })
})
