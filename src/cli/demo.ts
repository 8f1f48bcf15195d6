#!/usr/bin/env node
// npm run demo: the whole product in under a minute, with nothing configured. Serves the
// sample instances' metrics and health endpoints, starts the service on a port and data
// folder of its own (beside any `npm start`), sends the sample alerts of examples/, waits
// for the reports and prints the diagnoses and where the reports are. When anything fails
// it shows the service's log.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { packageRoot } from '../paths.js'
import { type ClientOptions, call } from './client.js'
import { writeDemoInventory } from './demo/demo-inventory.js'
import { type DemoService, startDemoService } from './demo/demo-service.js'
import { emlText } from './demo/eml-text.js'
import { type DemoRow, demoTable, stableReport, writeReadmeSection } from './demo/readme-sections.js'
import { serveSampleEndpoints } from './demo/sample-endpoints.js'

const print = (line = '') => process.stdout.write(`${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const examples = join(packageRoot, 'examples')
const instances = ['app-01', 'app-02', 'app-03', 'app-04']
/** Generous bounds for a loaded laptop; the demo takes a few seconds. */
const readyWithinMs = 60_000
const diagnosedWithinMs = 120_000
const usage = `usage: npm run demo -- [--port N] [--data-dir DIR] [--readme FILE]
  --port N        the service's port (default 0: any free one)
  --data-dir DIR  an empty or new folder for its data (default: a new temporary folder)
  --readme FILE   also write the table and app-01's report between the demo markers of FILE
DIAG_SMTP_URL, DIAG_MAIL_TO and DIAG_MAIL_FROM, when set, are passed on: the reports go by mail.`

/** Polls `read` until it returns a value, or fails saying what did not happen in time. */
async function until<T>(read: () => Promise<T | undefined>, withinMs: number, what: string): Promise<T> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what} within ${withinMs / 1000} s`)
    await sleep(250)
  }
}

/** The data folder: a new one, so that the sample alerts are new alerts, never duplicates. */
function dataFolder(given: string | undefined): string {
  if (!given) return mkdtempSync(join(tmpdir(), 'appserver-diag-demo-'))
  const dir = resolve(given)
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new Error(`--data-dir ${dir} is not empty: the demo needs a new folder (its alerts would be duplicates)`)
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

/**
 * The service's environment: the demo's own address, data folder and inventory, and no
 * other DIAG_* setting of the shell but the mail ones: a shell set up for `npm start`
 * (a port, a data folder, a database, tokens) must not reach the demo's service.
 */
function serviceEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const passed = new Set(['DIAG_SMTP_URL', 'DIAG_MAIL_TO', 'DIAG_MAIL_FROM'])
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('DIAG_') || passed.has(key)),
  )
  return { ...env, ...settings }
}

async function run(service: DemoService, data: string, readme: string | undefined, endpointsBase: string) {
  const startedAt = Date.now()
  // A service that ends before it is ready ends the demo at once (its log says why).
  const url = await Promise.race([
    service.ready,
    sleep(readyWithinMs).then(() =>
      Promise.reject(new Error(`the service was not ready within ${readyWithinMs / 1000} s`)),
    ),
  ])
  const client: ClientOptions = {
    url,
    token: readFileSync(join(data, 'api-token'), 'utf8').trim(),
    ca: readFileSync(join(data, 'tls', 'ca.pem')),
  }
  print(`service ready on ${url} (data in ${data})`)
  const send = async (file: string) => {
    const { status, body } = await call(
      client,
      'POST',
      '/api/v1/alerts/alertmanager',
      JSON.parse(readFileSync(join(examples, file), 'utf8')),
    )
    if (status !== 202) throw new Error(`examples/${file} was answered ${status}: ${JSON.stringify(body)}`)
    print(`sent examples/${file}: ${status} (${body.queued} queued, ${body.duplicates} duplicates)`)
  }
  const diagnosed = async () => {
    const { body } = await call(client, 'GET', '/api/v1/incidents?limit=50')
    return (body.incidents as Array<{ id: string; instance: string; diagnosis: unknown }>).filter((i) => i.diagnosis)
  }
  await send('webhook-firing.json')
  await send('webhook-multi.json')
  await until(
    async () => ((await diagnosed()).length >= instances.length ? true : undefined),
    diagnosedWithinMs,
    `the ${instances.length} sample alerts were not all diagnosed`,
  )
  await send('webhook-resolved.json')
  const outbox = join(data, 'outbox')
  const mails = () => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : [])
  if (!process.env.DIAG_SMTP_URL) {
    await until(
      async () => (mails().some((f) => f.endsWith('-recovery.eml')) && mails().length > instances.length) || undefined,
      diagnosedWithinMs,
      'the reports and the recovery mail were not all written',
    )
  }

  const rows: DemoRow[] = []
  let app01EventId: string | undefined
  for (const incident of (await diagnosed()).sort((a, b) => a.instance.localeCompare(b.instance))) {
    const { body } = await call(client, 'GET', `/api/v1/incidents/${incident.id}`)
    const primary = body.diagnosis?.primary ?? {}
    const mail = (body.delivery as Array<{ eventId: string; kind: string }>).find((d) => d.kind === 'diagnosis')
    if (body.instance === 'app-01') app01EventId = mail?.eventId
    rows.push({
      instance: String(body.instance),
      status: String(body.status),
      branch: String(primary.branch),
      rule: String(primary.ruleName),
      category: String(primary.category),
      confidence: primary.confidence ?? `none (${primary.classification})`,
    })
  }
  const table = demoTable(rows)
  print()
  print(table)
  print()
  if (process.env.DIAG_SMTP_URL) {
    print(`reports went to the SMTP server of DIAG_SMTP_URL (${new URL(process.env.DIAG_SMTP_URL).host})`)
  } else {
    print(`reports (one .eml file per e-mail, open them with any mail client) in ${outbox}:`)
    for (const file of mails().sort()) print(`  ${file}`)
    print()
    print('Next: set DIAG_SMTP_URL to send real e-mail, and point Alertmanager at the service (README).')
  }
  if (readme) {
    const report = mails().find((f) => app01EventId && f === `${app01EventId}-diagnosis.eml`)
    if (!report) throw new Error("--readme needs app-01's report as a file: leave DIAG_SMTP_URL unset")
    const { subject, text } = emlText(readFileSync(join(outbox, report), 'utf8'))
    writeReadmeSection(readme, 'table', table)
    writeReadmeSection(
      readme,
      'report',
      stableReport(`Subject: ${subject}\n\n${text}`, {
        packageRoot,
        endpointsBase,
        startedAt,
        endedAt: Date.now(),
      }).trimEnd(),
    )
    print(`wrote the table and app-01's report into ${readme}`)
  }
}

async function main(): Promise<number> {
  const { values: flags } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      'data-dir': { type: 'string' },
      readme: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  })
  if (flags.help) {
    print(usage)
    return 0
  }
  const data = dataFolder(flags['data-dir'])
  const endpoints = await serveSampleEndpoints(join(examples, 'endpoints'), instances)
  const inventory = join(data, 'demo-inventory.json')
  writeDemoInventory(inventory, join(examples, 'inventory.json'), endpoints)
  const logFile = join(data, 'service.log')
  const service = startDemoService(
    serviceEnv({
      DIAG_HOST: '127.0.0.1',
      DIAG_PORT: flags.port,
      DIAG_DATA_DIR: data,
      DIAG_INVENTORY: inventory,
      DIAG_LOG_LEVEL: 'info',
    }),
    logFile,
  )
  // Interrupted, the demo takes its service with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void service.stop().finally(() => process.exit(130))
    })
  }
  try {
    await run(service, data, flags.readme ? resolve(flags.readme) : undefined, endpoints.base)
    return 0
  } catch (error) {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`)
    const lines = service.lastLines()
    process.stderr.write(`the service's log (the last ${lines.length} lines; all of it in ${logFile}):\n`)
    for (const line of lines) process.stderr.write(`  ${line}\n`)
    return 1
  } finally {
    await service.stop()
    await endpoints.close()
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  },
)
