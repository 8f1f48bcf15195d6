import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// Evidence paths that are not regular files. A FIFO at a log path used
// to block an analysis thread for good, and a directory named *.jsonl in the spool failed
// the event. Each becomes an evidence gap with its reason; the event is still diagnosed and
// mailed, from the evidence that could be read.
const token = 'file-kinds-token-0000001'

describe('evidence paths that are not regular files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-file-kinds-'))
  const outside = mkdtempSync(join(tmpdir(), 'diag-file-kinds-outside-'))
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let service: ReturnType<typeof spawnService>

  beforeAll(async () => {
    const logs = join(dir, 'logs')
    const spool = join(dir, 'spool')
    mkdirSync(logs)
    mkdirSync(spool)
    execFileSync('mkfifo', [join(logs, 'fifo.log')])
    mkdirSync(join(logs, 'a-directory.log'))
    writeFileSync(
      join(logs, 'catalina.out'),
      '23-Nov-2026 10:00:00.000 SEVERE [http-nio-8080-exec-1] Servlet.service() failed\n' +
        'java.lang.OutOfMemoryError: Java heap space\n',
    )
    // A symlink to a file inside the roots is read; one leading outside them is refused.
    symlinkSync(join(logs, 'catalina.out'), join(logs, 'current.log'))
    writeFileSync(join(outside, 'secret.log'), 'not evidence\n')
    symlinkSync(join(outside, 'secret.log'), join(logs, 'escape.log'))
    execFileSync('mkfifo', [join(spool, 'events.jsonl')])
    mkdirSync(join(spool, 'archive.jsonl'))
    writeFileSync(
      join(spool, 'runtime.jsonl'),
      `${JSON.stringify({ timestamp: new Date().toISOString(), container: 'app-kinds', event: 'die', exitCode: 137, oomKilled: true })}\n`,
    )
    writeFileSync(
      join(dir, 'inventory.json'),
      JSON.stringify({
        instances: {
          'app-kinds': {
            logs: ['logs/fifo.log', 'logs/a-directory.log', 'logs/escape.log', 'logs/current.log', 'logs/catalina.out'],
            spoolDir: 'spool',
            container: 'app-kinds',
          },
        },
      }),
    )
    smtp = await startSmtp()
    service = spawnService(
      loopbackEnv(token, {
        DIAG_SMTP_URL: smtp.url,
        DIAG_INVENTORY: join(dir, 'inventory.json'),
      }),
      dir,
    )
    await service.ready
  })
  afterAll(async () => {
    service.child.kill('SIGKILL')
    await smtp.close()
    rmSync(dir, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })

  it('reports each as a gap with its reason and still diagnoses and mails the event', async () => {
    const ca = readFileSync(join(dir, 'data', 'tls', 'ca.pem'))
    const res = await request(`${service.url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca,
      body: JSON.stringify(
        webhook([alert({ id: 'kinds', startsAt: new Date().toISOString() }, { appserver_instance: 'app-kinds' })]),
      ),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    })
    expect(res.status).toBe(202)
    const mail = await waitFor(() => smtp.mails[0], 20_000, 'the diagnosis e-mail')
    expect(mail.headers.subject).toContain('TD-02 JavaHeapExhausted')
    expect(mail.text).toContain('logs/fifo.log: not a regular file (a FIFO)')
    expect(mail.text).toContain('logs/a-directory.log: not a regular file (a directory)')
    expect(mail.text).toContain('logs/escape.log: a symlink leading outside the allowed roots')
    expect(mail.text).toMatch(/logs\/current\.log: 2 lines/)
    expect(mail.text).not.toContain('not evidence')
    expect(mail.text).toContain('not read: events.jsonl: not a regular file (a FIFO)')
    expect(mail.text).toContain('not read: archive.jsonl: not a regular file (a directory)')
    expect(mail.text).toMatch(/Container events: 1 in the alert window/)
  })
})
