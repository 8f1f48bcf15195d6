// The `diag` command line: argument parsing and dispatch, importable by tests.
import { parseArgs } from 'node:util'
import { clientOptions } from './client.js'
import { listRules, pushRules, testRules } from './rules-commands.js'

const usage = `usage:
  diag rules push FILE                 register a rule or an array of rules (409 duplicates are skipped)
  diag rules list [--category C]       list the catalogue
  diag rules test FILE --log LOGFILE   evaluate a rulepack offline against a local log file
                  [--alertname NAME]   the alertname to evaluate for (rules with a ruleId)
                  [--expect-match]     exit 1 when a rule of FILE does not match

connection (push, list): --url URL --token TOKEN --ca CAFILE, or DIAG_CLI_URL, DIAG_CLI_TOKEN
(or DIAG_API_TOKEN), DIAG_CLI_CA; by default https://localhost:8443 with ./data/api-token
and ./data/tls/ca.pem, as a local \`npm start\` creates them.`

export async function main(
  argv: string[],
  env: Record<string, string | undefined>,
  print: (line: string) => void,
): Promise<number> {
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
      'expect-match': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [group, command, file] = positionals
  if (values.help || group !== 'rules' || !command) {
    print(usage)
    return values.help ? 0 : 2
  }
  switch (command) {
    case 'push':
      if (!file) break
      return pushRules(clientOptions(values, env), file, print)
    case 'list':
      return listRules(clientOptions(values, env), values.category, print)
    case 'test':
      if (!file || !values.log) break
      return testRules(
        file,
        {
          log: values.log,
          alertname: values.alertname ?? 'DiagRulesTest',
          expectMatch: values['expect-match'] ?? false,
        },
        print,
      )
  }
  print(usage)
  return 2
}
