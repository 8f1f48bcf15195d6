import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureDevCertificates } from '../../src/tls/dev-certificates.js'
import { request } from '../helpers/https-client.js'
import { type Daemon, daemonMetric, startAlertmanager, startPrometheus } from '../helpers/real-daemons.js'
import { realTool } from '../helpers/real-tools.js'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// Real Prometheus Alertmanager and Prometheus from Debian's packages, installed by npm
// test's pretest (or by realTool when run alone as root); missing, the suite fails.
realTool('prometheus-alertmanager', 'prometheus-alertmanager')
realTool('prometheus', 'prometheus')
const amtool = realTool('amtool', 'prometheus-alertmanager')
const token = 'integration-token-000001'

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

describe('with the real Alertmanager and Prometheus', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-integration-'))
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let service: ReturnType<typeof spawnService>
  let serviceUrl: string
  const caFile = join(dir, 'data', 'tls', 'ca.pem')
  const daemons: Daemon[] = []
  beforeAll(async () => {
    smtp = await startSmtp()
    service = spawnService(
      loopbackEnv(token, {
        DIAG_SMTP_URL: smtp.url,
      }),
      dir,
    )
    serviceUrl = await service.ready
  })
  afterAll(async () => {
    for (const daemon of daemons) daemon.stop()
    service.child.kill('SIGKILL')
    await smtp.close()
  })

  const postAlert = (am: Daemon, alert: Record<string, unknown>) =>
    fetch(`${am.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([alert]),
    })

  it('turns an alert posted to Alertmanager into a diagnosis, and its resolution into a recovery e-mail', async () => {
    const amDir = mkdtempSync(join(dir, 'am-'))
    const am = await startAlertmanager(amDir, { webhookUrl: `${serviceUrl}/api/v1/alerts/alertmanager`, token, caFile })
    daemons.push(am)
    const startsAt = new Date(Date.now() - 60_000).toISOString()
    const alert = {
      labels: {
        alertname: 'AppServerHealthCheckFailing',
        environment: 'prod',
        host: 'app-host-01',
        appserver_instance: 'app-01',
        check: 'health_ready',
        severity: 'critical',
      },
      annotations: { summary: 'Tomcat app-01 health check failing' },
      startsAt,
      generatorURL: 'http://prometheus.example:9090/graph',
    }
    expect((await postAlert(am, alert)).status).toBe(200)
    const diagnosis = await waitFor(
      () => smtp.mails.find((m) => m.headers.subject?.startsWith('[critical] AppServerHealthCheckFailing on app-01')),
      45_000,
      'the diagnosis e-mail',
    )
    expect(diagnosis.headers.subject).toBe(
      '[critical] AppServerHealthCheckFailing on app-01: TD-02 JavaHeapExhausted (jvm_memory)',
    )
    // The fingerprint the service computes from the labels is Alertmanager's own.
    const held = (await (await fetch(`${am.url}/api/v2/alerts`)).json()) as Array<{ fingerprint: string }>
    expect(held).toHaveLength(1)
    expect(diagnosis.text).toContain(`Fingerprint: ${held[0]?.fingerprint}`)

    expect((await postAlert(am, { ...alert, endsAt: new Date().toISOString() })).status).toBe(200)
    const recovery = await waitFor(
      () => smtp.mails.find((m) => m.headers.subject?.startsWith('[RESOLVED] AppServerHealthCheckFailing on app-01')),
      45_000,
      'the recovery e-mail',
    )
    expect(recovery.headers['in-reply-to']).toBe(diagnosis.headers['message-id'])
    expect(await daemonMetric(am.url, 'alertmanager_notifications_failed_total', 'integration="webhook"')).toBe(0)
    expect(
      await daemonMetric(am.url, 'alertmanager_notifications_total', 'integration="webhook"'),
    ).toBeGreaterThanOrEqual(2)
  }, 120_000)

  it('sends the recovery for a resolution whose start Alertmanager merged to an earlier one (amtool)', async () => {
    const am = await startAlertmanager(mkdtempSync(join(dir, 'am-merged-')), {
      webhookUrl: `${serviceUrl}/api/v1/alerts/alertmanager`,
      token,
      caFile,
    })
    daemons.push(am)
    const labels = [
      'alertname=MergedStart',
      'environment=prod',
      'host=app-host-09',
      'appserver_instance=app-merged',
      'check=health_ready',
      'severity=warning',
    ]
    const add = (...flags: string[]) =>
      execFileSync(amtool, ['alert', 'add', `--alertmanager.url=${am.url}`, ...labels, ...flags], { stdio: 'pipe' })
    const firedAt = Date.now() - 30_000
    add(`--start=${new Date(firedAt).toISOString()}`)
    const diagnosis = await waitFor(
      () => smtp.mails.find((m) => m.headers.subject?.startsWith('[warning] MergedStart on app-merged')),
      45_000,
      'the diagnosis e-mail',
    )
    // A second source posts the alert with an earlier start: Alertmanager merges the two,
    // keeps that start, and has nothing new to notify.
    add(`--start=${new Date(firedAt - 1500).toISOString()}`)
    const held = (await (await fetch(`${am.url}/api/v2/alerts`)).json()) as Array<{ startsAt: string }>
    expect(Date.parse(held[0]?.startsAt as string)).toBe(firedAt - 1500)
    // The resolution as an operator sends it, with no start: it gets the merged one.
    add(`--end=${new Date().toISOString()}`)
    const recovery = await waitFor(
      () => smtp.mails.find((m) => m.headers.subject?.startsWith('[RESOLVED] MergedStart on app-merged')),
      45_000,
      'the recovery e-mail',
    )
    expect(recovery.headers['in-reply-to']).toBe(diagnosis.headers['message-id'])
    const api = async (path: string) =>
      (
        await request(`${serviceUrl}${path}`, {
          ca: readFileSync(caFile),
          headers: { authorization: `Bearer ${token}` },
        })
      ).json() as Record<string, unknown>
    const list = (await api('/api/v1/incidents?instance=app-merged')) as { incidents: Array<{ id: string }> }
    expect(list.incidents).toHaveLength(1)
    const incident = (await api(`/api/v1/incidents/${list.incidents[0]?.id}`)) as {
      status: string
      events: Array<{ transition: string; alert: { startsAt: string } }>
    }
    expect(incident.status).toBe('resolved')
    const resolution = incident.events.find((e) => e.transition === 'resolved_merged')
    expect(Date.parse(resolution?.alert.startsAt as string)).toBe(firedAt - 1500)
  }, 120_000)

  it('shows a wrong token and an untrusted certificate as failed notifications in Alertmanager', async () => {
    const otherCa = await ensureDevCertificates(join(dir, 'other-ca'))
    const wrongToken = await startAlertmanager(mkdtempSync(join(dir, 'am-token-')), {
      webhookUrl: `${serviceUrl}/api/v1/alerts/alertmanager`,
      token: 'wrong-token-000000000000',
      caFile,
    })
    const untrusted = await startAlertmanager(mkdtempSync(join(dir, 'am-ca-')), {
      webhookUrl: `${serviceUrl}/api/v1/alerts/alertmanager`,
      token,
      caFile: otherCa.caFile,
    })
    daemons.push(wrongToken, untrusted)
    const alert = (instance: string) => ({
      labels: {
        alertname: 'WrongSetup',
        environment: 'prod',
        host: 'h',
        appserver_instance: instance,
        check: 'c',
        severity: 'warning',
      },
      annotations: {},
      startsAt: new Date().toISOString(),
    })
    await postAlert(wrongToken, alert('app-token'))
    await postAlert(untrusted, alert('app-ca'))
    const failed = (am: Daemon) =>
      daemonMetric(am.url, 'alertmanager_notifications_failed_total', 'integration="webhook"')
    await until(async () => (await failed(wrongToken)) > 0, 'a failed notification for the wrong token')
    await until(async () => (await failed(untrusted)) > 0, 'a failed notification for the untrusted certificate')
    expect(smtp.mails.some((m) => m.headers.subject?.includes('WrongSetup'))).toBe(false)
  }, 120_000)

  it('is scraped by Prometheus over TLS: up is 1 and the ready gauge is 1', async () => {
    const prom = await startPrometheus(mkdtempSync(join(dir, 'prom-')), { target: new URL(serviceUrl).host, caFile })
    daemons.push(prom)
    const query = async (expr: string) => {
      const body = (await (await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
        data: { result: Array<{ value: [number, string] }> }
      }
      return body.data.result[0]?.value[1]
    }
    await until(async () => (await query('up{job="diagnostic-service"}')) === '1', 'up == 1')
    await until(async () => (await query('diagnostic_service_ready')) === '1', 'the ready gauge')
    expect(await query('diagnostic_build_info')).toBe('1')
  }, 120_000)
})
