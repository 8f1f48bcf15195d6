#!/usr/bin/env node
// npm run demo: the whole product in under a minute, with nothing configured. Starts the
// service on its embedded defaults, sends the sample alerts of examples/, waits for the
// reports and prints where they are with a summary table.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { packageRoot } from '../paths.js'
import { type ClientOptions, call } from './client.js'

const print = (line = '') => process.stdout.write(`${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const examples = join(packageRoot, 'examples')

async function main(): Promise<number> {
  // The DIAG_* settings go to the service as they are (a port, a data folder, SMTP); the
  // demo reads the token and CA where the service keeps them.
  const { env } = process
  const child = spawn(process.execPath, [join(packageRoot, 'dist', 'src', 'server.js')], {
    cwd: process.cwd(),
    env: { ...env, DIAG_LOG_LEVEL: env.DIAG_LOG_LEVEL ?? 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  // Interrupted, the demo takes its service with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      child.kill('SIGTERM')
      process.exit(130)
    })
  }
  const url = await new Promise<string>((ready, fail) => {
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /ready on (https:\/\/[^\s"]+)/.exec(out)
      if (match?.[1]) ready(match[1])
    })
    child.on('exit', (code) =>
      fail(new Error(`the service exited (${code}) before it was ready: its log above says why (a port in use?)`)),
    )
  })
  try {
    const data = resolve(env.DIAG_DATA_DIR ?? 'data')
    const caFile = join(data, 'tls', 'ca.pem')
    const client: ClientOptions = {
      url,
      token: env.DIAG_API_TOKEN ?? readFileSync(join(data, 'api-token'), 'utf8').trim(),
      // With DIAG_TLS_CERT set the service's own certificate is used, trusted as the system trusts it.
      ...(env.DIAG_TLS_CERT || !existsSync(caFile) ? {} : { ca: readFileSync(caFile) }),
    }
    print(`service ready on ${url} (data in ${data})`)
    for (const file of ['webhook-firing.json', 'webhook-multi.json']) {
      const { status, body } = await call(
        client,
        'POST',
        '/api/v1/alerts/alertmanager',
        JSON.parse(readFileSync(join(examples, file), 'utf8')),
      )
      print(`sent examples/${file}: ${status} (${body.queued} queued, ${body.duplicates} duplicates)`)
    }
    const diagnosed = async () => {
      const { body } = await call(client, 'GET', '/api/v1/incidents?limit=50')
      return (body.incidents as Array<{ id: string; instance: string; diagnosis: unknown }>).filter((i) => i.diagnosis)
    }
    for (let i = 0; i < 120 && (await diagnosed()).length < 4; i++) await sleep(250)
    const resolved = await call(
      client,
      'POST',
      '/api/v1/alerts/alertmanager',
      JSON.parse(readFileSync(join(examples, 'webhook-resolved.json'), 'utf8')),
    )
    print(`sent examples/webhook-resolved.json: ${resolved.status}`)
    const outbox = join(data, 'outbox')
    for (let i = 0; i < 120 && !env.DIAG_SMTP_URL; i++) {
      const mails = existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : []
      if (mails.some((f) => f.endsWith('-recovery.eml')) && mails.length >= 5) break
      await sleep(250)
    }

    print()
    print(
      `${'instance'.padEnd(10)}${'status'.padEnd(10)}${'branch'.padEnd(8)}${'rule'.padEnd(28)}${'category'.padEnd(24)}confidence`,
    )
    for (const incident of (await diagnosed()).sort((a, b) => a.instance.localeCompare(b.instance))) {
      const { body } = await call(client, 'GET', `/api/v1/incidents/${incident.id}`)
      const primary = body.diagnosis?.primary ?? {}
      print(
        `${String(body.instance).padEnd(10)}${String(body.status).padEnd(10)}${String(primary.branch).padEnd(8)}${String(primary.ruleName).padEnd(28)}${String(primary.category).padEnd(24)}${primary.confidence ?? `none (${primary.classification})`}`,
      )
    }
    print()
    if (env.DIAG_SMTP_URL) {
      print(`reports went to the SMTP server of DIAG_SMTP_URL (${new URL(env.DIAG_SMTP_URL).host})`)
    } else {
      print(`reports (one .eml file per e-mail, open them with any mail client) in ${outbox}:`)
      for (const file of readdirSync(outbox).sort()) print(`  ${file}`)
      print()
      print('Next: set DIAG_SMTP_URL to send real e-mail, and point Alertmanager at the service (README).')
    }
    return 0
  } finally {
    child.kill('SIGTERM')
    await new Promise((done) => child.once('exit', done))
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  },
)
