import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createHttpsServer } from 'node:https'
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureDevCertificates, readTlsMaterial } from '../../src/tls/dev-certificates.js'
import { type Daemon, startAlertmanager } from '../helpers/real-daemons.js'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'
import { type ReceivedMail, startSmtp, waitFor } from '../helpers/smtp.js'
import {
  listening,
  occupyPort,
  prepareJetty,
  prepareTomcat,
  type RunningTomcat,
  requireServerTools,
  type ServerBase,
  serverPort,
  startBlackbox,
  startJetty,
  startPrometheusProbe,
  startTomcat,
} from './harness.js'

// `npm run test:servers`: a real Tomcat 10 (and a Jetty 9) fails the way production servers fail; a real
// Prometheus probes it through the blackbox exporter and fires through a real Alertmanager
// to the service over TLS 1.3 with a bearer token; the report arrives at an in-process SMTP
// server and names the branch. Every wait is on a log line, a port or a mail.

requireServerTools()
const token = 'servers-suite-token-0001'
const scenarios = [
  'app-heap',
  'app-metaspace',
  'app-stuck',
  'app-refused',
  'app-pkix',
  'app-port',
  'app-healthy',
  'app-files',
  'app-gc',
  'app-drained',
  'app-hung',
  'app-exited',
  'app-heap-high',
  'app-overflow',
  'jetty-heap',
] as const
type Scenario = (typeof scenarios)[number]
/** An instance the inventory names whose server never ran here: its log files do not exist. */
const missing = 'app-missing'
type Instance = Scenario | typeof missing

/** How long each scenario took from its failure to its report, printed at the end. */
const timings: Array<{ scenario: string; ms: number }> = []

describe('real Tomcat 10 and Jetty 9 failures, diagnosed end to end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-servers-'))
  const spoolDir = join(dir, 'spool')
  const tomcats = {} as Record<Exclude<Scenario, 'jetty-heap'>, ServerBase>
  let jetty: ServerBase
  const serverOf = (scenario: Scenario) => (scenario === 'jetty-heap' ? jetty : tomcats[scenario])
  const running: RunningTomcat[] = []
  const daemons: Daemon[] = []
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let service: ReturnType<typeof spawnService>
  let alertmanager: Daemon
  let blackbox: Daemon

  beforeAll(async () => {
    mkdirSync(spoolDir)
    writeFileSync(join(spoolDir, 'events.jsonl'), '')
    for (const scenario of scenarios) {
      if (scenario === 'jetty-heap') continue
      const maxThreads = scenario === 'app-stuck' ? 3 : undefined
      // Tomcat as shipped, without the stuck-thread valve: nothing logs a hung request.
      const stuckThreadValve = scenario !== 'app-hung'
      tomcats[scenario] = prepareTomcat(join(dir, scenario), await serverPort(), { maxThreads, stuckThreadValve })
    }
    jetty = prepareJetty(join(dir, 'jetty-heap'), await serverPort())
    // The operator's inventory: each instance's logs (JULI, or Jetty's console) and GC log, its health and metrics URLs.
    const instances: Record<string, object> = Object.fromEntries(
      scenarios.map((s) => {
        const server = serverOf(s)
        const { log, gcLog, healthUrl, metricsUrl } = server
        return [s, { logs: [log, gcLog], spoolDir, container: s, healthUrl, metricsUrl }]
      }),
    )
    instances[missing] = { logs: [join(dir, missing, 'catalina.log')] }
    const inventory = join(dir, 'inventory.json')
    writeFileSync(inventory, JSON.stringify({ roots: [dir], instances }))
    smtp = await startSmtp()
    service = spawnService(loopbackEnv(token, { DIAG_SMTP_URL: smtp.url, DIAG_INVENTORY: inventory }), dir)
    const serviceUrl = await service.ready
    alertmanager = await startAlertmanager(mkdtempSync(join(dir, 'am-')), {
      webhookUrl: `${serviceUrl}/api/v1/alerts/alertmanager`,
      token,
      caFile: join(dir, 'data', 'tls', 'ca.pem'),
    })
    blackbox = await startBlackbox(dir)
    daemons.push(alertmanager, blackbox)
  }, 120_000)

  afterAll(async () => {
    for (const tomcat of running) await tomcat.stop()
    for (const daemon of daemons) daemon.stop()
    service?.child.kill('SIGKILL')
    await smtp?.close()
    process.stdout.write(
      `\nfailure to report, per scenario:\n${timings.map((t) => `  ${t.scenario.padEnd(14)} ${(t.ms / 1000).toFixed(1)} s`).join('\n')}\n`,
    )
  })

  const start = async (scenario: Exclude<Scenario, 'jetty-heap'>, options: Parameters<typeof startTomcat>[1] = {}) => {
    const tomcat = await startTomcat(tomcats[scenario], options)
    running.push(tomcat)
    return tomcat
  }
  /** Prometheus probing the scenario's instance: its alert fires when the health check fails. */
  const probe = async (scenario: Scenario) => {
    const prometheus = await startPrometheusProbe(mkdtempSync(join(dir, `prom-${scenario}-`)), {
      instance: scenario,
      healthUrl: serverOf(scenario).healthUrl,
      blackbox: blackbox.url,
      alertmanager: alertmanager.url,
    })
    daemons.push(prometheus)
    return prometheus
  }
  const reportFor = (scenario: Instance, failedAt: number): Promise<ReceivedMail> =>
    waitForOrExplain(
      scenario,
      () =>
        smtp.mails.find(
          (m) => m.headers.subject?.includes(` on ${scenario}:`) && !m.headers.subject.startsWith('[RESOLVED]'),
        ),
      90_000,
      `the report for ${scenario}`,
    ).then((mail) => {
      timings.push({ scenario, ms: Date.now() - failedAt })
      return mail
    })
  /**
   * After the fix: the health check passes again, Prometheus resolves the alert, and the
   * recovery mail arrives threaded under the report of the same incident.
   */
  const recoveryFor = async (scenario: Instance, report: ReceivedMail, alertname = 'AppServerHealthCheckFailing') => {
    const recovery = await waitForOrExplain(
      scenario,
      () => smtp.mails.find((m) => m.headers.subject?.startsWith(`[RESOLVED] ${alertname} on ${scenario}`)),
      90_000,
      `the recovery for ${scenario}`,
    )
    expect(recovery.headers['in-reply-to']).toBe(report.headers['message-id'])
    return recovery
  }
  /** A wait that, when it times out, says what the server logged and what Alertmanager holds. */
  const waitForOrExplain = async <T>(
    scenario: Instance,
    check: () => T | undefined | false,
    timeoutMs: number,
    what: string,
  ): Promise<T> => {
    try {
      return await waitFor(check, timeoutMs, what)
    } catch (error) {
      const log = scenario === missing ? '(no server)' : serverOf(scenario).log
      const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-40).join('\n') : '(no log)'
      const alerts = await fetch(`${alertmanager.url}/api/v2/alerts`).then((r) => r.text(), String)
      throw new Error(
        `${(error as Error).message}\n--- ${log}:\n${tail}\n--- Alertmanager:\n${alerts}\n--- service:\n${service.stdout().slice(-3000)}`,
      )
    }
  }
  /**
   * An alert that does not come from the health probe (a certificate or GC-time rule of
   * another exporter), posted to Alertmanager as Prometheus would; `endsAt` resolves it.
   */
  const raiseAlert = async (scenario: Instance, alertname: string, check: string, summary: string) => {
    const alert = {
      labels: {
        alertname,
        environment: 'test',
        host: 'localhost',
        appserver_instance: scenario,
        check,
        severity: 'warning',
      },
      annotations: { summary },
      startsAt: new Date().toISOString(),
    }
    const post = (body: unknown) =>
      fetch(`${alertmanager.url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([body]),
      })
    expect((await post(alert)).status).toBe(200)
    return {
      resolve: async () => expect((await post({ ...alert, endsAt: new Date().toISOString() })).status).toBe(200),
    }
  }
  /** The report's first line of section 1: branch, name, category, and what the evidence earned. */
  const expectSummary = (report: ReceivedMail, summary: string) =>
    expect(report.text?.split('\n').find((line) => /^[A-Z]{2}-\d{2} /.test(line))).toBe(summary)
  /** A request that a fatal error may fail: its status, or 'closed' when the error killed the connection. */
  const statusOrClosed = (url: string) =>
    fetch(url).then(
      (res) => res.status,
      () => 'closed' as const,
    )
  /** A record the container runtime's collector writes for the scenario's container, now. */
  const spool = (scenario: Scenario, event: Record<string, unknown>) =>
    appendFileSync(
      join(spoolDir, 'events.jsonl'),
      `${JSON.stringify({ timestamp: new Date().toISOString(), container: scenario, ...event })}\n`,
    )

  it('heap exhaustion: OutOfMemoryError under a small -Xmx is TD-02, confirmed, and the restart sends the recovery', async () => {
    const tomcat = await start('app-heap', { heapMb: 64 })
    await probe('app-heap')
    const failedAt = Date.now()
    // The request fails: a 500, or the connection closed by a thread the error killed.
    const leak = await statusOrClosed(`http://127.0.0.1:${tomcats['app-heap'].port}/app/leak`)
    expect([500, 'closed']).toContain(leak)
    // The runtime's health check of the container turns unhealthy.
    spool('app-heap', { event: 'health_status', health: 'unhealthy', exitCode: null })
    const report = await reportFor('app-heap', failedAt)
    expectSummary(report, 'TD-02 JavaHeapExhausted (jvm_memory): confirmed_cause, high confidence')
    expect(report.text).toContain('java.lang.OutOfMemoryError: Java heap space')

    // The fix: a restart. The health check passes again, the alert resolves.
    await tomcat.stop()
    await start('app-heap', { heapMb: 64 })
    await recoveryFor('app-heap', report)
  }, 240_000)

  it('metaspace exhaustion: generated classes under a small MaxMetaspaceSize are TD-03', async () => {
    // Each generated class keeps its loader and its Class mirror on the heap too: a heap of
    // 256 MiB runs out well after the 48 MiB of Metaspace, so the JVM throws Metaspace's error
    // instead of collecting a nearly full heap again and again (a CI run once waited 300 s).
    const metaspaceJvm = { heapMb: 256, jvmOptions: ['-XX:MaxMetaspaceSize=48m'] }
    const tomcat = await start('app-metaspace', metaspaceJvm)
    await probe('app-metaspace')
    const failedAt = Date.now()
    const res = await statusOrClosed(`http://127.0.0.1:${tomcats['app-metaspace'].port}/app/classes`)
    expect([500, 'closed']).toContain(res)
    const report = await reportFor('app-metaspace', failedAt)
    // One error line, corroborated by the failing health probe.
    expectSummary(report, 'TD-03 ClassMetadataExhausted (jvm_memory): confirmed_cause, high confidence')
    expect(report.text).toContain('java.lang.OutOfMemoryError: Metaspace')
    await tomcat.stop()
    await start('app-metaspace', metaspaceJvm)
    await recoveryFor('app-metaspace', report)
  }, 240_000)

  it('request threads stuck past the StuckThreadDetectionValve threshold are TH-02', async () => {
    const tomcat = await start('app-stuck')
    await probe('app-stuck')
    const failedAt = Date.now()
    // Every request thread (3) waits on something that does not answer; the health check starves.
    const slow = [1, 2, 3].map(() =>
      fetch(`http://127.0.0.1:${tomcats['app-stuck'].port}/app/slow?ms=60000`).catch(() => undefined),
    )
    const report = await reportFor('app-stuck', failedAt)
    expectSummary(report, 'TH-02 StuckThreads (concurrency_threading): probable_cause, medium confidence')
    expect(report.text).toContain('StuckThreadDetectionValve.notifyStuckThreadDetected')
    await tomcat.stop()
    await Promise.allSettled(slow)
    await start('app-stuck')
    await recoveryFor('app-stuck', report)
  }, 240_000)

  it('a downstream TLS endpoint with an untrusted certificate is TD-04 (PKIX)', async () => {
    const tls = await ensureDevCertificates(join(dir, 'untrusted-tls'))
    const downstream = createHttpsServer(readTlsMaterial(tls), (_req, res) => res.end('ok'))
    await new Promise<void>((resolve) => downstream.listen(0, '127.0.0.1', resolve))
    const { port } = downstream.address() as AddressInfo
    try {
      const failedAt = Date.now()
      const tomcat = await start('app-pkix', {
        systemProperties: { 'diag.downstream.https': `https://localhost:${port}/` },
      })
      await probe('app-pkix')
      const report = await reportFor('app-pkix', failedAt)
      expectSummary(report, 'TD-04 TlsTrustFailure (network_integration): confirmed_cause, high confidence')
      expect(report.text).toContain('PKIX path building failed')
      // The fix here: the dependency is left out of the health check until it is trusted.
      await tomcat.stop()
      await start('app-pkix')
      await recoveryFor('app-pkix', report)
    } finally {
      downstream.close()
    }
  }, 240_000)

  it('a downstream that refuses connections is TD-01, confirmed by the repeated failures of the health check', async () => {
    const closed = await serverPort()
    expect(await listening(closed)).toBe(false)
    const failedAt = Date.now()
    await start('app-refused', { systemProperties: { 'diag.downstream': `127.0.0.1:${closed}` } })
    await probe('app-refused')
    const report = await reportFor('app-refused', failedAt)
    expectSummary(report, 'TD-01 UpstreamConnectionRefused (network_integration): confirmed_cause, high confidence')
    expect(report.text).toContain('java.net.ConnectException: Connection refused')
    // The fix: the downstream service comes back; no restart needed.
    const downstream = await occupyPort(closed)
    try {
      await recoveryFor('app-refused', report)
    } finally {
      await downstream.close()
    }
  }, 240_000)

  it('the HTTP port already in use at start is TD-05', async () => {
    const squatter = await occupyPort(tomcats['app-port'].port)
    try {
      const failedAt = Date.now()
      const tomcat = await start('app-port')
      await probe('app-port')
      const report = await reportFor('app-port', failedAt)
      expectSummary(report, 'TD-05 DeploymentOrStartupFailed (application_lifecycle): confirmed_cause, high confidence')
      expect(report.text).toContain('java.net.BindException: Address already in use')
      // The fix: the other process goes, Tomcat starts again on its port.
      await squatter.close()
      await tomcat.stop()
      await start('app-port')
      await recoveryFor('app-port', report)
    } finally {
      await squatter.close().catch(() => undefined)
    }
  }, 240_000)

  it('a healthy server and an unrelated alert: no cause is claimed (TD-08)', async () => {
    await start('app-healthy')
    const sentAt = Date.now()
    const alert = await raiseAlert(
      'app-healthy',
      'AppServerCertificateRenewalDue',
      'certificate_expiry',
      'The certificate is due for renewal in 20 days',
    )
    const report = await reportFor('app-healthy', sentAt)
    expectSummary(report, 'TD-08 UnmappedEvidence (general): undetermined')
    // The certificate is renewed: the alert ends, and its recovery follows.
    await alert.resolve()
    await recoveryFor('app-healthy', report, 'AppServerCertificateRenewalDue')
  }, 240_000)

  it('a file-handle leak under ulimit -n 400: too many open files is TD-06, for the host to be checked', async () => {
    const tomcat = await start('app-files', { maxOpenFiles: 400 })
    await probe('app-files')
    const failedAt = Date.now()
    expect((await fetch(`http://127.0.0.1:${tomcats['app-files'].port}/app/files`)).status).toBe(200)
    const report = await reportFor('app-files', failedAt)
    expectSummary(report, 'TD-06 OsResourceLimitSuspected (storage_os_limits): undetermined')
    expect(report.text).toContain('Too many open files')
    await tomcat.stop()
    await start('app-files', { maxOpenFiles: 400 })
    await recoveryFor('app-files', report)
  }, 240_000)

  it('back-to-back full collections of a nearly full heap, in the GC log, are GC-01', async () => {
    // Serial GC, a 4 MiB young generation and immediate promotion: short-lived data fills
    // the old generation, whose full collections each leave it more than 90 % full.
    await start('app-gc', {
      heapMb: 128,
      jvmOptions: ['-Xms128m', '-XX:+UseSerialGC', '-Xmn4m', '-XX:MaxTenuringThreshold=0'],
    })
    const failedAt = Date.now()
    const res = await fetch(`http://127.0.0.1:${tomcats['app-gc'].port}/app/pressure?retainMb=106&seconds=4`)
    expect(res.status).toBe(200)
    // The GC-time alert a JVM exporter's rule would raise now; the evidence is the GC log.
    const alert = await raiseAlert('app-gc', 'AppServerGcTimeHigh', 'gc_time', 'More than half of the time in GC')
    const report = await reportFor('app-gc', failedAt)
    expectSummary(report, 'GC-01 FullGcThrashing (jvm_memory): confirmed_cause, high confidence')
    expect(report.text).toMatch(
      /Garbage collection \(in the log excerpt\): \d+ collections, \d+ full \((\d+) left the heap 90 % full/,
    )
    await alert.resolve()
    await recoveryFor('app-gc', report, 'AppServerGcTimeHigh')
  }, 240_000)

  it('a health check answering 503 with nothing in the logs is AH-04, probable: the probe is the only evidence', async () => {
    const drainFile = join(tomcats['app-drained'].base, 'temp', 'drain')
    await start('app-drained', { systemProperties: { 'diag.drainFile': drainFile } })
    // The operator's drain file takes the instance out of rotation; nothing is logged.
    writeFileSync(drainFile, '')
    const failedAt = Date.now()
    expect((await fetch(tomcats['app-drained'].healthUrl)).status).toBe(503)
    await probe('app-drained')
    const report = await reportFor('app-drained', failedAt)
    expectSummary(report, 'AH-04 HealthProbeFailing (application_lifecycle): probable_cause, medium confidence')
    expect(readFileSync(tomcats['app-drained'].log, 'utf8')).not.toMatch(/SEVERE|Exception/)
    // The fix: the drain file goes, the instance is back in rotation.
    rmSync(drainFile)
    await recoveryFor('app-drained', report)
  }, 240_000)

  it('a health check that never answers, with no stuck-thread valve to log it, is AH-05', async () => {
    // A downstream that accepts connections and never answers: the TLS handshake of the
    // health check waits on it forever (java.net.URL has no read time-out).
    const held: Socket[] = []
    const silent = createNetServer((socket) => held.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    try {
      const failedAt = Date.now()
      const tomcat = await start('app-hung', {
        systemProperties: { 'diag.downstream.https': `https://127.0.0.1:${port}/` },
      })
      await probe('app-hung')
      const report = await reportFor('app-hung', failedAt)
      expectSummary(report, 'AH-05 HealthProbeUnresponsive (concurrency_threading): probable_cause, medium confidence')
      // The fix: the dependency is left out of the health check until it answers.
      await tomcat.stop()
      await start('app-hung')
      await recoveryFor('app-hung', report)
    } finally {
      for (const socket of held) socket.destroy()
      silent.close()
    }
  }, 240_000)

  it("a JVM that cannot start (a mistyped -Xmx) exits with code 1: the runtime's exit event makes it AH-03", async () => {
    const failedAt = Date.now()
    const failure = await start('app-exited', { jvmOptions: ['-Xmx64x'] }).then(
      () => Promise.reject(new Error('Tomcat started with -Xmx64x')),
      (error: Error & { exitCode?: number }) => error,
    )
    expect(failure.message).toContain('Invalid maximum heap size')
    expect(failure.exitCode).toBe(1)
    // What the container runtime's collector writes when the container stops: the real exit code.
    spool('app-exited', { event: 'die', exitCode: failure.exitCode, oomKilled: false })
    await probe('app-exited')
    const report = await reportFor('app-exited', failedAt)
    expectSummary(report, 'AH-03 ProcessExitedWithError (application_lifecycle): confirmed_cause, high confidence')
    // The fix: the option corrected, the server starts.
    await start('app-exited')
    await recoveryFor('app-exited', report)
  }, 240_000)

  it("a heap 90 % full by the JVM's own metrics, with nothing in the logs, is GC-04", async () => {
    // Epsilon GC never collects: the heap stays where the request left it until the scrape.
    const tomcat = await start('app-heap-high', {
      heapMb: 256,
      jvmOptions: ['-XX:+UnlockExperimentalVMOptions', '-XX:+UseEpsilonGC'],
    })
    const failedAt = Date.now()
    const filled = await fetch(`http://127.0.0.1:${tomcats['app-heap-high'].port}/app/fill?ratio=0.92`)
    expect(Number(await filled.text())).toBeGreaterThanOrEqual(0.92)
    // The heap alert a JVM exporter's rule would raise; the evidence is the metrics endpoint.
    const alert = await raiseAlert('app-heap-high', 'AppServerHeapHigh', 'heap', 'Heap above 90 % of its maximum')
    const report = await reportFor('app-heap-high', failedAt)
    expectSummary(report, 'GC-04 HeapNearLimit (jvm_memory): probable_cause, medium confidence')
    // The fix: a restart (a real one would also look for the leak); the alert ends.
    await tomcat.stop()
    await start('app-heap-high')
    await alert.resolve()
    await recoveryFor('app-heap-high', report, 'AppServerHeapHigh')
  }, 240_000)

  it("requests that recurse until StackOverflowError with the JVM's default stack are TD-11: folded traces keep their line in the window", async () => {
    // No -Xss: the request threads' stacks are the JVM's default.
    await start('app-overflow')
    const failedAt = Date.now()
    // Two requests fail: an error rate, not one failure. Tomcat survives a stack overflow
    // (the filter chain wraps it in a ServletException), so the health check stays green.
    for (let i = 0; i < 2; i++)
      expect(await statusOrClosed(`http://127.0.0.1:${tomcats['app-overflow'].port}/app/recurse`)).toBe(500)
    // Tomcat logged each error with the top 1,024 frames the JVM records: more lines than the
    // 500-line window, all after the exception's line, so only folding keeps it in view.
    const log = readFileSync(tomcats['app-overflow'].log, 'utf8')
    const lines = log.split('\n')
    const last = lines.findLastIndex((line) => line.includes('java.lang.StackOverflowError'))
    expect(lines.slice(last).filter((line) => /^\s+at diag\.Recurse\./.test(line)).length).toBeGreaterThan(1000)
    // The 5xx-rate alert an SRE's rule over the access metrics would raise.
    const alert = await raiseAlert(
      'app-overflow',
      'AppServerErrorRateHigh',
      'error_rate',
      'More than 5 % of requests fail',
    )
    const report = await reportFor('app-overflow', failedAt)
    // Confirmed: the signature is on two lines (one per trace), both in the window.
    expectSummary(report, 'TD-11 StackOverflow (jvm_memory): confirmed_cause, high confidence')
    // The matched line, numbered as in the file.
    const first = lines.findIndex((line) => line.includes('java.lang.StackOverflowError'))
    expect(report.text).toContain(`${first + 1}: ${lines[first]}`)
    await alert.resolve()
    await recoveryFor('app-overflow', report, 'AppServerErrorRateHigh')
  }, 240_000)

  it('an alert for an instance whose logs do not exist and that has nothing else to ask is TD-07', async () => {
    expect(existsSync(join(dir, missing))).toBe(false)
    const sentAt = Date.now()
    const alert = await raiseAlert(missing, 'AppServerDown', 'process', 'The server process is not running')
    const report = await reportFor(missing, sentAt)
    expectSummary(report, 'TD-07 EvidenceUnavailable (general): undetermined')
    await alert.resolve()
    await recoveryFor(missing, report, 'AppServerDown')
  }, 240_000)

  it('the same heap exhaustion on Jetty 9 is TD-02 too: the evidence is not Tomcat-shaped', async () => {
    const server = await startJetty(jetty, { heapMb: 64 })
    running.push(server)
    await probe('jetty-heap')
    const failedAt = Date.now()
    const leak = await statusOrClosed(`http://127.0.0.1:${jetty.port}/app/leak`)
    expect([500, 'closed']).toContain(leak)
    const report = await reportFor('jetty-heap', failedAt)
    expectSummary(report, 'TD-02 JavaHeapExhausted (jvm_memory): confirmed_cause, high confidence')
    expect(report.text).toContain('java.lang.OutOfMemoryError: Java heap space')
    await server.stop()
    running.push(await startJetty(jetty, { heapMb: 64 }))
    await recoveryFor('jetty-heap', report)
  }, 240_000)
})
