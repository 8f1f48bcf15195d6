// The command line of the diagnostic service: argument parsing and dispatch, importable by tests.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { packageRoot } from '../paths.js'
import { clientOptions } from './connection.js'
import { help } from './help.js'
import { incidentListOptions, listIncidents, showIncident } from './incidents-commands.js'
import type { Output } from './output.js'
import { listRules, testRules } from './rules-commands.js'
import { pushRules } from './rules-push.js'
import { replayRules } from './rules-replay.js'
import { copySqliteToPostgres } from './storage-copy.js'

const version = () =>
  (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version

const options = {
  url: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  ca: { type: 'string' },
  config: { type: 'string' },
  category: { type: 'string' },
  log: { type: 'string' },
  alertname: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  status: { type: 'string' },
  instance: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  all: { type: 'boolean' },
  'events-limit': { type: 'string' },
  'events-cursor': { type: 'string' },
  'expect-match': { type: 'boolean' },
  last: { type: 'string' },
  json: { type: 'boolean' },
  // As amtool spells it: -o json.
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const

export async function main(argv: string[], env: Record<string, string | undefined>, output: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options })
  if (values.version) {
    output.out(version())
    return 0
  }
  const [group, command, argument] = positionals
  const topic = `${group} ${command}`
  const usage = (code: number, problem?: string) => {
    const text = help[topic] ?? help.main ?? ''
    if (code === 0) output.out(text)
    else output.err(problem ? `appserver-diag: ${problem}\nRun 'appserver-diag ${topic} --help' for its usage.` : text)
    return code
  }
  if (!(topic in help)) return usage(values.help ? 0 : 2)
  if (values.help) return usage(0)
  if (values.output !== undefined && values.output !== 'json' && values.output !== 'text')
    return usage(2, `--output (-o) must be json or text, not ${values.output}`)
  const json = values.json === true || values.output === 'json'
  const client = () => clientOptions(values, env)
  switch (topic) {
    case 'storage copy':
      if (!values.from || !values.to) return usage(2)
      return copySqliteToPostgres(values.from, values.to, output, json)
    case 'incidents list': {
      const list = incidentListOptions(values)
      if (typeof list === 'string') return usage(2, list)
      return listIncidents(client(), list, output, json)
    }
    case 'incidents show': {
      if (!argument) return usage(2, 'which incident? Give its id (incidents list shows them)')
      const eventsLimit = values['events-limit']
      if (eventsLimit !== undefined && !/^(?:[1-9]\d?|1\d\d|200)$/.test(eventsLimit))
        return usage(2, '--events-limit must be a whole number from 1 to 200')
      const page = { eventsLimit, eventsCursor: values['events-cursor'] }
      return showIncident(client(), argument, page, output, json)
    }
    case 'rules push':
      if (!argument) return usage(2)
      return pushRules(client(), argument, output, json)
    case 'rules list':
      return listRules(client(), values.category, output, json)
    case 'rules replay':
      if (!argument) return usage(2)
      if (values.last !== undefined && !/^[1-9]\d{0,3}$|^5000$/.test(values.last))
        return usage(2, '--last must be a whole number from 1 to 5000')
      return replayRules(client(), argument, values.last, output, json)
    case 'rules test':
      if (!argument || !values.log) return usage(2)
      return testRules(
        argument,
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
  return usage(2)
}
