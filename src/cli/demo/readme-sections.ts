import { readFileSync, writeFileSync } from 'node:fs'

/** One row of the demo's table: an incident and its primary finding. */
export interface DemoRow {
  instance: string
  status: string
  branch: string
  rule: string
  category: string
  confidence: string
}

const columns: Array<[keyof DemoRow, number]> = [
  ['instance', 10],
  ['status', 10],
  ['branch', 8],
  ['rule', 28],
  ['category', 24],
  ['confidence', 0],
]

/** The table the demo prints, one incident a line, by instance. */
export function demoTable(rows: readonly DemoRow[]): string {
  const line = (cells: Record<keyof DemoRow, string>) =>
    columns.map(([key, width]) => cells[key].padEnd(width)).join('')
  const header = Object.fromEntries(columns.map(([key]) => [key, key])) as Record<keyof DemoRow, string>
  return [header, ...rows].map((row) => line(row).trimEnd()).join('\n')
}

/** What differs from one run to the next, and where this copy of the project lives. */
export interface RunFacts {
  packageRoot: string
  /** The sample endpoints' base URL (a free port each run). */
  endpointsBase: string
  /** The run's span (epoch ms): instants inside it are the run's own (receipt, rendering). */
  startedAt: number
  endedAt: number
}

const uuid = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g
const instant = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g

/**
 * A report as the README shows it: the same text, with what a run cannot reproduce put in
 * words (ids, the instants of the run, the probe's latency, the time between the metrics
 * reads, the demo's port) and paths
 * relative to the project, so that two runs give the same text.
 */
export function stableReport(text: string, run: RunFacts): string {
  return (
    text
      .split(`${run.packageRoot}/`)
      .join('')
      .split(run.endpointsBase)
      .join('http://127.0.0.1:<demo port>')
      .replace(uuid, '<uuid>')
      .replace(instant, (at) => {
        const ms = Date.parse(at)
        return ms >= run.startedAt - 1000 && ms <= run.endedAt + 1000 ? '<time of the run>' : at
      })
      // A latency of 0 ms is not printed at all: both read the same.
      .replace(/^(Health probe: \S+ \(HTTP \d+\))(?: in \d+ ms)?$/m, '$1 in <n> ms')
      // The time between the two metrics reads is measured, and a loaded host stretches it.
      .replace(/ of the [\d.,]+ s between two reads /, ' of the <n> s between two reads ')
  )
}

/**
 * Replaces the text between `<!-- demo:<name> -->` and `<!-- /demo:<name> -->` in `file`
 * with `content` in a text block; throws when the markers are missing.
 */
export function writeReadmeSection(file: string, name: string, content: string): void {
  const text = readFileSync(file, 'utf8')
  const open = `<!-- demo:${name} -->`
  const close = `<!-- /demo:${name} -->`
  const start = text.indexOf(open)
  const end = text.indexOf(close)
  if (start < 0 || end < start) throw new Error(`${file} has no ${open} ... ${close} section`)
  const section = `${open}\n\`\`\`text\n${content}\n\`\`\`\n`
  writeFileSync(file, text.slice(0, start) + section + text.slice(end))
}
