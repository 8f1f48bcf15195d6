import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { configKeys } from '../../src/config/schema.js'
import { packageRoot } from '../../src/paths.js'
import { type DocReference, docReferences, pathExists } from '../helpers/doc-references.js'
import { request } from '../helpers/https-client.js'
import { type ServiceProcess, spawnService } from '../helpers/service-process.js'
import { waitFor } from '../helpers/smtp.js'

// Issue 29: an operator follows README.md and docs/operations.md to the letter, and installs
// the files of examples/deploy/ they point to, so every variable, metric, npm script,
// command and repository path these name must exist: known from the code and from a real
// service, never from a hand-kept list.
const documents = [
  'README.md',
  'docs/operations.md',
  'examples/deploy/env',
  'examples/deploy/diagnostic-service.service',
  'examples/deploy/diagnostic-service-alerts.yml',
]

/**
 * Names a document may write although the service does not have them, each with why, as
 * `{ 'DIAG_EXAMPLE': 'a placeholder in ...' }`. None today: only `DIAG_*`, `diagnostic_*`
 * and paths under the repository's own folders are checked, so Alertmanager's metrics and
 * host paths (/etc/..., /var/lib/...) need no entry.
 */
const exceptions: Record<string, string> = {}

const read = (file: string) => readFileSync(join(packageRoot, file), 'utf8')

/** Every file under src/. */
function sources(dir = join(packageRoot, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Every match of `pattern`'s first group in the files of src/. */
const inSources = (pattern: RegExp) =>
  sources().flatMap((file) => [...readFileSync(file, 'utf8').matchAll(pattern)].map((m) => m[1] as string))

/**
 * The service's variables (config/schema.ts) and those only the command line reads
 * (`env.DIAG_CLI_CONFIG`, `variable('DIAG_CLI_URL')`).
 */
function knownVariables(): Set<string> {
  return new Set<string>([...configKeys, ...inSources(/(?:\benv\.|\bvariable\(')(DIAG_[A-Z0-9_]+)/g)])
}

/** The command table of `appserver-diag --help`: "rules push", "storage copy", ... */
async function knownCommands(): Promise<Set<string>> {
  const lines: string[] = []
  const code = await main(['--help'], {}, { out: (line) => lines.push(line), err: (line) => lines.push(line) })
  expect(code).toBe(0)
  const table =
    lines
      .join('\n')
      .split(/^commands:$/m)[1]
      ?.split(/\n\s*\n/)[0] ?? ''
  const commands = [...table.matchAll(/^ {2}([a-z][\w-]*) ([a-z][\w-]*)/gm)].map((m) => `${m[1]} ${m[2]}`)
  expect(commands.length).toBeGreaterThan(0)
  return new Set(commands)
}

/**
 * The metric families of a real scrape, with the series of histograms and summaries, and
 * those declared as `name: 'diagnostic_…'` in src/ that a service on SQLite leaves out.
 */
function knownMetrics(exposition: string): Set<string> {
  const names = new Set<string>(inSources(/\bname: ['`](diagnostic_[a-z0-9_]+)['`]/g))
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name as string)
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`)
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`)
  }
  return names
}

const nameIn = (known: Set<string>, name: string) =>
  name.endsWith('*') ? [...known].some((k) => k.startsWith(name.slice(0, -1))) : known.has(name)

describe('README.md, docs/operations.md and examples/deploy/ name only what exists', () => {
  let service: ServiceProcess & { ready: Promise<string> }
  let cwd: string
  let metrics: Set<string>

  // A service as `npm start` runs it on its defaults, with one alert diagnosed and mailed to
  // a file: what it scrapes is every metric, what it writes under data/ is every data path.
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'diag-docs-'))
    service = spawnService({ DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_LOG_LEVEL: 'warn' }, cwd)
    const url = await service.ready
    const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
    const token = readFileSync(join(cwd, 'data', 'api-token'), 'utf8').trim()
    const accepted = await request(`${url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: read('examples/webhook-firing.json'),
    })
    expect(accepted.status).toBe(202)
    const outbox = join(cwd, 'data', 'outbox')
    await waitFor(() => pathExists(outbox, '*.eml'), 30_000, 'the report in data/outbox/')
    metrics = knownMetrics((await request(`${url}/metrics`, { ca })).text)
  })
  afterAll(() => service?.child.kill('SIGKILL'))

  /** What a document names that the code and the running service do not have, as "file:line: kind name". */
  async function missing(document: string, markdown: string): Promise<string[]> {
    const variables = knownVariables()
    const commands = await knownCommands()
    const scripts = new Set(Object.keys(JSON.parse(read('package.json')).scripts as object))
    const exists: Record<DocReference['kind'], (name: string) => boolean> = {
      variable: (name) => nameIn(variables, name),
      metric: (name) => nameIn(metrics, name),
      script: (name) => scripts.has(name),
      // A command with its subcommand, or a group alone ("appserver-diag rules"); none is
      // the bare command line (its --help, --version).
      command: (name) => name === '' || commands.has(name) || [...commands].some((c) => c.startsWith(`${name} `)),
      // data/ is the service's folder at run time: the one the service above wrote.
      path: (name) => pathExists(name.startsWith('data/') ? cwd : packageRoot, name),
    }
    return docReferences(markdown)
      .filter((ref) => !Object.hasOwn(exceptions, ref.name) && !exists[ref.kind](ref.name))
      .map((ref) => `${document}:${ref.line}: ${ref.kind} ${ref.name}`)
  }

  it.each(documents)('%s: every variable, metric, npm script, command and repository path exists', async (document) => {
    expect(await missing(document, read(document)), 'named in the docs but not in the service').toEqual([])
  })

  it('names each kind it does not find, with its line', async () => {
    const wrong = [
      'Set `DIAG_RETENTION_DAY` and watch `diagnostic_service_readiness`.',
      '```sh',
      'npm run bench:everything',
      'appserver-diag rules remove TD-19   # appserver-diag on the PATH is prose',
      'sudo cp examples/deploy/diag.service /etc/systemd/system/',
      'sqlite3 data/diagnostics.db .dump',
      '```',
    ].join('\n')
    expect(await missing('wrong.md', wrong)).toEqual([
      'wrong.md:1: variable DIAG_RETENTION_DAY',
      'wrong.md:1: metric diagnostic_service_readiness',
      'wrong.md:3: script bench:everything',
      'wrong.md:5: path examples/deploy/diag.service',
      'wrong.md:6: path data/diagnostics.db',
      'wrong.md:4: command rules remove',
    ])
  })

  it('finds what it checks in the documents', () => {
    const found = documents.flatMap((document) => docReferences(read(document)))
    for (const kind of ['variable', 'metric', 'script', 'command', 'path'] as const) {
      expect(
        found.some((ref) => ref.kind === kind),
        kind,
      ).toBe(true)
    }
  })
})
