// Where one event's time goes, from the service's own V8 CPU profiles (`node --cpu-prof`, one
// file per thread): `BENCH_PROFILE=1 npm run bench:worker` profiles the service and calls
// this with the window of the measured storm. Each sample inside the window is given to the
// stage of the first frame, from the leaf up, that belongs to one (a native call such as a
// file read or a socket write takes the stage of the code that made it); Node's own stream,
// socket and TLS code counts as "sockets" only when nothing of ours or of a library is above it.
// The figures are sampled wall time of each thread while it was not idle: a thread blocked
// in a system call (SQLite's fsync) counts as busy, as it cannot serve anything meanwhile.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string }
  children?: number[]
}

interface Profile {
  nodes: ProfileNode[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

/** Stages by where their code lives; the first whose test holds names a frame's stage. */
const stages: Array<[stage: string, test: RegExp]> = [
  [
    'read (tail, folding)',
    /src\/evidence\/(log-tail|log-collector|allowed-path|regular-file)|src\/text\/frame-folding/,
  ],
  ['redact', /src\/evidence\/(redact|secret-|values-on-next-lines|config-dump|redaction-options)/],
  ['scan: automaton', /^wasm:|src\/text\/(aho-corasick|dfa-scan)/],
  ['scan: matches, lines, record join', /src\/text\/(pattern-index|stack-frames|wrapped-records|required-literals)/],
  // Decoding is lazy: whoever asks for the text first pays it (the exception reader, mostly).
  ['decode the excerpt to text', /src\/text\/excerpt/],
  ['exception reader', /src\/text\/exceptions\//],
  ['GC log', /src\/evidence\/gc-log/],
  ['facts (exception verdicts)', /src\/rules\/(exception-facts|exception-taxonomy|facts)\./],
  ['evidence bundle (its header, brotli)', /src\/rules\/bundle\/|src\/worker\/diagnosis-record|^node:zlib/],
  [
    'engine (json-rules-engine)',
    /node_modules\/(json-rules-engine|clone|hash-it|eventemitter2|jsonpath-plus|lodash)|src\/rules\//,
  ],
  ['thread messages', /src\/worker\/analysis\/|^postMessage$|^emitMessage$/],
  ['render (model, templates)', /src\/report\/|node_modules\/handlebars/],
  ['SQLite (statements, commits, fsync)', /node_modules\/better-sqlite3|src\/store\/|src\/queue\//],
  ['mail (nodemailer, SMTP)', /node_modules\/nodemailer|src\/mail\//],
  ['logging', /node_modules\/(pino|sonic-boom|thread-stream)|src\/worker\/event-log/],
  ['metrics', /node_modules\/(prom-client|tdigest|bintrees)|src\/metrics/],
  ['worker loop, evidence', /src\/worker\/|src\/evidence\//],
  [
    'webhook (fastify, validation, identity)',
    /node_modules\/(fastify|@fastify|find-my-way|avvio|ajv|fast-json-stringify|fast-uri|light-my-request|secure-json-parse|abstract-logging|toad-cache)|src\/(http|incidents|auth)\/|src\/app\./,
  ],
]
const sockets = /^node:(_http|https|http|_tls|tls|net|internal\/(stream|streams|js_stream|tls|http|net))/
const fixed = new Map([
  ['(idle)', 'idle'],
  ['(garbage collector)', 'V8: garbage collector'],
  ['(program)', 'V8: program (compiler, runtime)'],
])

/** The stage of every node of a profile, from its own frame or its callers'. */
function stagesOf(profile: Profile): Map<number, string> {
  const parent = new Map<number, number>()
  const byId = new Map<number, ProfileNode>()
  for (const node of profile.nodes) {
    byId.set(node.id, node)
    for (const child of node.children ?? []) parent.set(child, node.id)
  }
  const result = new Map<number, string>()
  const frameStage = (node: ProfileNode): string | undefined => {
    const { url, functionName } = node.callFrame
    const where = url || functionName
    return fixed.get(functionName) ?? stages.find(([, test]) => test.test(where))?.[0]
  }
  for (const node of profile.nodes) {
    let fallback: string | undefined
    let stage: string | undefined
    for (let at: ProfileNode | undefined = node; at && !stage; at = byId.get(parent.get(at.id) ?? -1)) {
      stage = frameStage(at)
      if (!fallback && sockets.test(at.callFrame.url)) fallback = 'sockets (HTTP, TLS, SMTP)'
    }
    result.set(node.id, stage ?? fallback ?? 'other (Node, start-up)')
  }
  return result
}

export interface ThreadStages {
  /** The profile's thread: 0 the main thread, then the worker threads in their order of start. */
  thread: number
  /** Sampled milliseconds by stage, within the window. */
  ms: Map<string, number>
  windowMs: number
}

/**
 * The stages of every profile in `dir`, counting samples between `fromUs` and `toUs` on the
 * monotonic clock (V8's profile times and process.hrtime share CLOCK_MONOTONIC on Linux).
 */
export function profileStages(dir: string, fromUs: number, toUs: number): ThreadStages[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => {
      const profile = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Profile
      const stageOf = stagesOf(profile)
      const ms = new Map<string, number>()
      let at = profile.startTime
      profile.samples.forEach((id, i) => {
        const delta = profile.timeDeltas[i] ?? 0
        at += delta
        if (at < fromUs || at > toUs) return
        const stage = stageOf.get(id) as string
        ms.set(stage, (ms.get(stage) ?? 0) + delta / 1000)
      })
      // CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile
      return { thread: Number(name.split('.')[4]), ms, windowMs: (toUs - fromUs) / 1000 }
    })
    .sort((a, b) => a.thread - b.thread)
}

/** The table the benchmark prints: per thread, each stage's ms per event and share of the window. */
export function stageLines(threads: readonly ThreadStages[], events: number): string[] {
  const lines: string[] = []
  for (const { thread, ms, windowMs } of threads) {
    const busy = [...ms].filter(([stage]) => stage !== 'idle').reduce((sum, [, value]) => sum + value, 0)
    lines.push(
      `${thread === 0 ? 'main thread' : `worker thread ${thread}`}: busy ${((100 * busy) / windowMs).toFixed(0)} % of ${windowMs.toFixed(0)} ms, ${(busy / events).toFixed(2)} ms an event`,
    )
    for (const [stage, value] of [...ms].sort((a, b) => b[1] - a[1])) {
      if (stage === 'idle') continue
      lines.push(
        `  ${stage.padEnd(42)}${(value / events).toFixed(3).padStart(8)} ms an event ${((100 * value) / busy).toFixed(1).padStart(6)} %`,
      )
    }
  }
  return lines
}

/** CPU milliseconds of each thread of a process so far, by the kernel's thread id (utime + stime, 10 ms ticks). */
export function threadCpu(pid: number): Map<number, number> {
  const cpu = new Map<number, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
      cpu.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * 10)
    } catch {} // the thread ended meanwhile
  }
  return cpu
}

/**
 * The CPU each thread used per event between two readings: the main thread and the worker
 * threads by name (their kernel ids from the memory probe), the others together (V8's
 * collector and compiler threads, libuv's pool).
 */
export function threadCpuLines(
  before: Map<number, number>,
  after: Map<number, number>,
  named: Map<number, string>,
  events: number,
): string[] {
  const others: number[] = []
  const lines: string[] = []
  for (const [tid, ms] of after) {
    const used = ms - (before.get(tid) ?? 0)
    const name = named.get(tid)
    if (name) lines.push(`  ${name.padEnd(28)}${(used / events).toFixed(2).padStart(7)} ms an event`)
    else others.push(used)
  }
  const total = others.reduce((sum, used) => sum + used, 0)
  const busiest = others
    .sort((a, b) => b - a)
    .slice(0, 4)
    .map((used) => (used / events).toFixed(2))
  lines.push(
    `  ${'other threads (V8, libuv)'.padEnd(28)}${(total / events).toFixed(2).padStart(7)} ms an event (the busiest: ${busiest.join(', ')})`,
  )
  return lines
}
