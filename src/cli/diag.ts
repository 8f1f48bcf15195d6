#!/usr/bin/env node
// `diag`: the operator's command line for the rules API. See main.ts.
import { main } from './main.js'

main(process.argv.slice(2), process.env, (line) => process.stdout.write(`${line}\n`)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`diag: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  },
)
