// The command line of the diagnostic service: argument parsing and dispatch, importable by tests.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { packageRoot } from '../paths.js'
import { clientOptions } from './client.js'
import type { Output } from './output.js'
import { listRules, testRules } from './rules-commands.js'
import { pushRules } from './rules-push.js'
import { copySqliteToPostgres } from './storage-copy.js'

const connection = `connection: --url URL --token TOKEN --ca CAFILE, or DIAG_CLI_URL, DIAG_CLI_TOKEN (or
DIAG_API_TOKEN), DIAG_CLI_CA; by default https://localhost:8443 with ./data/api-token and
./data/tls/ca.pem, as a local \`npm start\` creates them.`

const help: Record<string, string> = {
  main: `usage: appserver-diag <command> [options]

commands:
  rules push FILE        register the rules of a rulepack file
  rules list             list the rule catalogue
  rules test FILE        try a rulepack on a log file before registering it
  storage copy           move a stopped service's SQLite database into an empty PostgreSQL

options: --json (machine-readable output), --help (for any command), --version

Results go to stdout, errors to stderr. Exit codes: 0 done, 1 refused or failed, 2 usage.
Run 'appserver-diag rules push --help' for a command's options and an example.`,
  push: `usage: appserver-diag rules push FILE [--json] [connection]

Registers each rule of FILE (one rule object or an array) through POST /api/v1/rules.
A rule identical to a registered one is skipped. A rule whose branch, name or pattern is
already taken by a rule that says something else is refused: the command names that rule
and exits 1. Rules are append-only: try them with 'rules test' first.

example:
  appserver-diag rules push examples/rulepack.json --url https://diag.example.internal:8443 \\
      --token "$DIAG_CLI_TOKEN" --ca /etc/diagnostic/ca.pem

${connection}`,
  list: `usage: appserver-diag rules list [--category CATEGORY] [--json] [connection]

Lists the catalogue: the built-in rules and every registered custom rule.

example:
  appserver-diag rules list --category database_persistence

${connection}`,
  test: `usage: appserver-diag rules test FILE --log LOGFILE [--alertname NAME] [--expect-match] [--json] [connection]

Evaluates the rules of FILE with the service's engine, next to the built-in and seed
rules, over the tail of LOGFILE (the service's bounds, redacted as the service redacts).
When a service is reachable, each rule is also checked against its catalogue (a dry run
that stores nothing): a conflict there fails the test. Unreachable, it says so.

  --alertname NAME   the alertname to evaluate for (rules with a ruleId)
  --expect-match     exit 1 when a rule of FILE matches nothing

example:
  appserver-diag rules test my-rules.json --log /var/log/tomcat10/catalina.out --expect-match

${connection}`,
  copy: `usage: appserver-diag storage copy --from SQLITE_FILE --to POSTGRES_URL [--json]

Copies every incident, event, queue item, result, mail and rule of a SQLite database into
an empty PostgreSQL database (its schema created there first), in one transaction: from
then on the service runs with DIAG_DATABASE_URL. Stop the service first; a PostgreSQL
database that already holds incidents, events or rules is refused, nothing copied.

example:
  appserver-diag storage copy --from data/diagnostic.db \\
      --to 'postgres://diag@db.example.internal:5432/diag?sslmode=verify-full&sslrootcert=/etc/diag/pg-ca.pem'`,
}

const version = () =>
  (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version

export async function main(argv: string[], env: Record<string, string | undefined>, output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      ca: { type: 'string' },
      category: { type: 'string' },
      log: { type: 'string' },
      alertname: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      'expect-match': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
    },
  })
  if (values.version) {
    output.out(version())
    return 0
  }
  const [group, command, file] = positionals
  const usage = (topic: string, code: number) => {
    if (code === 0) output.out(help[topic] ?? help.main ?? '')
    else output.err(help[topic] ?? help.main ?? '')
    return code
  }
  const json = values.json ?? false
  if (group === 'storage' && command === 'copy') {
    if (values.help) return usage('copy', 0)
    if (!values.from || !values.to) return usage('copy', 2)
    return copySqliteToPostgres(values.from, values.to, output, json)
  }
  if (group !== 'rules' || !command) return usage('main', values.help ? 0 : 2)
  if (values.help) return usage(command, 0)
  const client = () => clientOptions(values, env)
  switch (command) {
    case 'push':
      if (!file) return usage('push', 2)
      return pushRules(client(), file, output, json)
    case 'list':
      return listRules(client(), values.category, output, json)
    case 'test':
      if (!file || !values.log) return usage('test', 2)
      return testRules(
        file,
        {
          log: values.log,
          alertname: values.alertname ?? 'DiagRulesTest',
          expectMatch: values['expect-match'] ?? false,
          json,
        },
        client,
        output,
      )
  }
  return usage('main', 2)
}
