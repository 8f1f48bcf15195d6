// npm run bench:redact: redaction of 512 KiB excerpts built to make its expressions
// backtrack, next to 512 KiB of ordinary log lines carrying real secrets (the baseline,
// measured in the same run). Prints the median time of each and its ratio to the baseline;
// a quadratic expression would show ratios in the hundreds. Never fails on speed.
import { redact } from '../src/evidence/redact.js'
import { secretCorpus } from '../test/fixtures/secret-corpus.js'

const runs = Number(process.env.BENCH_RUNS ?? 9)
const size = 512 * 1024
const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size)

const baseline = fill(
  `${[
    '2026-11-23 10:00:00,001 INFO  [http-nio-8080-exec-1] c.e.orders.OrderController - GET /api/orders/123 200 in 14 ms',
    ...secretCorpus.map((sample) => sample.line),
  ].join('\n')}\n`,
)

const hostile: Array<[string, string]> = [
  ['one line of secret words, no separator', fill('PWDH')],
  ['secret words in one long identifier', fill('credential')],
  ['key=key=key=… (a value that is a key)', fill('password=')],
  ['JWT prefixes without dots', `eyJ${fill('A')}`],
  ['eyJ repeated', fill('eyJ')],
  ['-eyJ repeated (a word boundary at each)', fill('-eyJ')],
  ['URL credentials without @', fill('://:a')],
  ['Oracle URLs without @', fill('jdbc:oracle:thin:a/b')],
  ['private key headers, no body', fill('-----BEGIN PRIVATE KEY-----V')],
  ['escaped private keys cut off', fill('-----BEGIN PRIVATE KEY-----\\nMIIE')],
  ['XML openers with secret names', fill('<password')],
  ['JSON keys without values', fill('"password":"')],
  ['bearer words', fill('Bearer ')],
  ['token prefixes', fill('ghp_xoxb-sk_live_AIza')],
  ['command-line flags without values', fill(' --password ')],
  ['lines of 100 bytes, each with a secret word', fill(`${'x'.repeat(80)} password=abc\n`)],
  // Issue 26: the kinds of configuration dumps, encodings and URLs.
  ['YAML keys opening values on the next lines', fill('password: |\n')],
  ['name fields naming secrets, no value', fill('"name": "x_password", ')],
  ['CLI arrows without values', fill('"password" => ')],
  ['base64 "PRIVATE KEY" runs, no key', fill('LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t\n')],
  ['URL credentials, every password holding @', fill('://a:b@')],
]

/** The baseline again with the options of redaction on (card numbers over the whole excerpt, e-mails). */
const withOptions = { maskCardNumbers: true, maskEmails: true }

function median(text: string, options = {}): number {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    redact(text, options)
    times.push(performance.now() - started)
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] as number
}

// Once untimed first: the baseline is measured first, and would pay the compilation alone.
redact(baseline)
const base = median(baseline)
console.log(`redaction of 512 KiB, median of ${runs} runs`)
console.log(`${'baseline: log lines with real secrets'.padEnd(48)} ${base.toFixed(1).padStart(8)} ms   1.0x`)
for (const [name, text] of hostile) {
  const ms = median(text)
  console.log(`${name.padEnd(48)} ${ms.toFixed(1).padStart(8)} ms ${(ms / base).toFixed(1).padStart(5)}x`)
}
const optioned = median(baseline, withOptions)
console.log(
  `${'baseline with maskCardNumbers and maskEmails'.padEnd(48)} ${optioned.toFixed(1).padStart(8)} ms ${(optioned / base).toFixed(1).padStart(5)}x`,
)
