#!/usr/bin/env node
// `appserver-diag`: the operator's command line for the incidents and rules APIs. See main.ts.
import { main } from './main.js'

main(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`appserver-diag: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(
      error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS') ? 2 : 1,
    )
  },
)
