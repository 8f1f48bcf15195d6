import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { collectLogs } from '../../src/evidence/log-collector.js'
import { countBytes, readLogTail } from '../../src/evidence/log-tail.js'
import { redactBytes } from '../../src/evidence/redact.js'
import { lineLocator } from '../../src/report/log-locations.js'
import { excerptOf } from '../../src/text/excerpt.js'
import { foldLine, lastLinesFolded, maxCycle, minFolded } from '../../src/text/frame-folding.js'
import { PatternIndex } from '../../src/text/pattern-index.js'
import { isFrameSegment } from '../../src/text/stack-frames.js'
import { secretCorpus } from '../fixtures/secret-corpus.js'
import { secretShapes } from '../fixtures/secret-shapes.js'

// A StackOverflowError's trace holds the 1,024 frames the JVM records: without folding, the
// 500-line window keeps only frames and loses the exception's line (docs/design.md, "Deep
// traces are folded").

const root = mkdtempSync(join(tmpdir(), 'diag-folding-'))
const logs = join(root, 'logs')
mkdirSync(logs)
let files = 0
const logFile = (lines: readonly string[]) => {
  const file = join(logs, `log-${files++}.log`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

const severe =
  '21-Nov-2026 10:15:02.118 SEVERE [http-nio-8080-exec-4] org.apache.catalina.core.StandardWrapperValve.invoke Servlet.service() for servlet [diag.Recurse] in context with path [/app] threw exception [Servlet execution threw an exception] with root cause'
const overflow = '\tjava.lang.StackOverflowError'
/** The frames of a recursion through `methods`, `count` of them, starting at method `phase`. */
const recursion = (count: number, methods: readonly string[], phase = 0) =>
  Array.from({ length: count }, (_, i) => {
    const method = methods[(i + phase) % methods.length] as string
    return `\t\tat diag.Recurse.${method}(Recurse.java:${20 + method.length})`
  })
const ordinary = (count: number, from = 0) =>
  Array.from(
    { length: count },
    (_, i) =>
      `21-Nov-2026 10:14:${String((from + i) % 60).padStart(2, '0')}.000 INFO [main] org.example.Orders processed ${from + i}`,
  )
const td11 = PatternIndex.fromSources([{ key: 'TD-11', source: 'java.lang.StackOverflowError' }])
const folded = (lines: readonly string[], maxLines = 500) => {
  const buffer = Buffer.from(lines.join('\n'))
  return lastLinesFolded(buffer, 0, buffer.length, maxLines)
}

/**
 * The folding rule written plainly, every cycle length tried at every line, on strings: the
 * shortcuts of frame-folding.ts (the last-byte test, multiples of a cycle skipped) must not
 * change what it folds.
 */
function plainFolding(lines: readonly string[], maxLines: number): string[] {
  const up = [...lines].reverse()
  const repeats = (at: number, cycle: number) =>
    at + cycle < up.length && up[at] === up[at + cycle] && isFrameSegment(up[at] as string)
  const out: string[] = []
  let at = 0
  while (out.length < maxLines && at < up.length) {
    let best = { cycle: 0, run: 0, folded: 0 }
    for (let cycle = 1; cycle <= maxCycle; cycle++) {
      let run = 0
      while (repeats(at + run, cycle)) run++
      const folded = run - (run % cycle)
      if (folded >= minFolded && folded > best.folded) best = { cycle, run, folded }
    }
    if (best.folded === 0) {
      out.push(up[at++] as string)
      continue
    }
    const above = at + best.run + best.cycle
    out.push(foldLine(/^[ \t]*/.exec(up[at + best.folded] as string)?.[0] ?? '', best.folded, best.cycle))
    for (at += best.folded; at < above && out.length < maxLines; at++) out.push(up[at] as string)
  }
  return out.reverse()
}

describe('frame folding (docs/design.md, "Deep traces are folded")', () => {
  it('keeps the exception line of a 1,024-frame trace in the 500-line window', () => {
    const lines = [...ordinary(200), severe, overflow, ...recursion(1024, ['visit'])]
    // Without folding, the last 500 lines are frames only.
    expect(lines.slice(-500).some((line) => line.includes('StackOverflowError'))).toBe(false)
    const tail = readLogTail(logFile(lines))
    const text = tail.bytes.toString()
    expect(text).toContain(`${severe}\n${overflow}\n\t\tat diag.Recurse.visit(Recurse.java:25)\n`)
    expect(text.endsWith('\t\t... 1,023 identical frames folded')).toBe(true)
    // The bounds stay: what is left of them holds the 200 lines before the trace.
    expect(tail).toMatchObject({ lines: 204, truncated: false, firstLine: 1, folds: [{ line: 203, lines: 1023 }] })
    expect(td11.scanExcerpt(excerptOf(tail.bytes)).get('TD-11')).toMatchObject({ line: 202, text: overflow })
  })

  it('folds the cycle of a recursion through several methods, wherever the trace starts in it', () => {
    for (const methods of [
      ['visit', 'expand'],
      ['visit', 'expand', 'resolve'],
      ['a', 'b', 'c', 'd', 'e', 'f'],
    ]) {
      for (let phase = 0; phase < methods.length; phase++) {
        const frames = recursion(1024, methods, phase)
        const tail = folded([severe, overflow, ...frames, ...ordinary(3)])
        const cycle = methods.length
        const count = 1024 - cycle - ((1024 - cycle) % cycle)
        const kept = 1024 - count
        // The top of the trace as it was, then one line for the rest, then the log goes on.
        expect(tail.bytes.toString().split('\n')).toEqual([
          severe,
          overflow,
          ...frames.slice(0, kept),
          foldLine('\t\t', count, cycle),
          ...ordinary(3),
        ])
        expect(foldLine('\t\t', count, cycle)).toContain(
          cycle === 1 ? 'identical frames folded' : `(${cycle}-frame cycle above, ${count / cycle} more times)`,
        )
        expect(tail.folds).toEqual([{ line: 2 + kept, lines: count }])
      }
    }
  })

  it(`folds cycles of up to ${maxCycle} frames, several traces, and keeps CRLF line ends`, () => {
    const methods = (n: number) => Array.from({ length: n }, (_, i) => `m${i}`)
    const longest = folded([overflow, ...recursion(600, methods(maxCycle))])
    expect(longest.folds).toHaveLength(1)
    const tooLong = folded([overflow, ...recursion(600, methods(maxCycle + 1))])
    expect(tooLong.folds).toEqual([])
    expect(tooLong.lines).toBe(500)
    // Two traces: each folded, each exception line kept.
    const two = folded([severe, overflow, ...recursion(1024, ['a', 'b']), severe, overflow, ...recursion(1024, ['a'])])
    expect(
      two.bytes
        .toString()
        .split('\n')
        .filter((line) => line === overflow),
    ).toHaveLength(2)
    expect(two.folds.map((f) => f.lines)).toEqual([1022, 1023])
    const crlf = folded([overflow, ...recursion(50, ['a'])].map((line) => `${line}\r`))
    expect(crlf.bytes.toString().split('\n')).toEqual([
      `${overflow}\r`,
      '\t\tat diag.Recurse.a(Recurse.java:21)\r',
      '\t\t... 49 identical frames folded\r',
    ])
  })

  it('leaves everything else as read: repeated messages, short recursions, frames that differ', () => {
    const heartbeat = Array.from({ length: 300 }, () => 'INFO [pool-1] heartbeat ok')
    const unfoldedCases = [
      heartbeat,
      // Fewer repeats than minFolded.
      [severe, overflow, ...recursion(minFolded, ['visit']), ...ordinary(5)],
      // Frames that differ by their line number are not copies.
      [overflow, ...Array.from({ length: 100 }, (_, i) => `\tat diag.Tree.walk(Tree.java:${i})`)],
      // A repeated frame whose lines alternate with messages.
      Array.from({ length: 100 }, (_, i) => (i % 2 ? 'DEBUG retry' : '\tat diag.Retry.run(Retry.java:9)')),
    ]
    for (const lines of unfoldedCases) {
      const tail = folded(lines)
      expect(tail.folds).toEqual([])
      expect(tail.bytes.toString()).toBe(lines.slice(-500).join('\n'))
    }
  })

  it('folds nothing away that its fold lines do not give back, on generated traces', () => {
    const frameLines = [
      '\tat a.A.x(A.java:1)',
      '\t\tat a.B.y(B.java:2)',
      'at a.C.z(C.java:3)',
      '      at a.D.w(D.java:4)',
      // Longer than what a fold of short frames saves: a fold below it moves it.
      `\t\tat org.example.${'deeply.nested.'.repeat(12)}Service.call(Service.java:5) ~[service-1.0.jar:1.0]`,
    ]
    const piece = fc.oneof(
      // A recursion: a cycle of up to 14 frames, repeated, cut anywhere.
      fc
        .tuple(fc.array(fc.constantFrom(...frameLines), { minLength: 1, maxLength: 14 }), fc.nat(60), fc.nat(13))
        .map(([cycle, times, extra]) => [
          ...Array.from({ length: times }, () => cycle).flat(),
          ...cycle.slice(0, extra % cycle.length),
        ]),
      fc.array(fc.constantFrom(...frameLines, 'INFO message', 'java.lang.StackOverflowError', ''), { maxLength: 5 }),
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.integer({ min: 1, max: 500 }), (pieces, maxLines) => {
        const lines = pieces.flat()
        fc.pre(lines.join('\n').length > 0)
        const tail = folded(lines, maxLines)
        const kept = tail.bytes.toString().split('\n')
        expect(kept).toEqual(plainFolding(lines, maxLines))
        expect(kept).toHaveLength(tail.lines)
        expect(tail.lines).toBeLessThanOrEqual(maxLines)
        for (const fold of tail.folds) expect(fold.lines).toBeGreaterThanOrEqual(minFolded)
        // A window cut by maxLines inside the cycle above its first fold: that cycle is not all in view.
        const first = tail.folds[0]
        if (first && first.line < Number(/(\d+)-frame cycle/.exec(kept[first.line] as string)?.[1] ?? 1)) return
        // Each fold line, replaced by the cycle right above it repeated, gives the lines back.
        const expanded: string[] = []
        for (const [i, line] of kept.entries()) {
          const fold = tail.folds.find((f) => f.line === i)
          if (!fold) {
            expanded.push(line)
            continue
          }
          const cycle = Number(/(\d+)-frame cycle/.exec(line)?.[1] ?? 1)
          expect(line).toBe(foldLine(/^\s*/.exec(kept[i - 1] as string)?.[0] ?? '', fold.lines, cycle))
          const above = expanded.slice(-cycle)
          for (let n = 0; n < fold.lines / cycle; n++) expanded.push(...above)
        }
        expect(expanded).toEqual(lines.slice(lines.length - expanded.length))
        expect(tail.more).toBe(expanded.length < lines.length)
      }),
      { numRuns: 400 },
    )
  })

  it('numbers the lines after a fold as in the file, and says which lines a fold line replaced', () => {
    const lines = [...ordinary(10), severe, overflow, ...recursion(1024, ['visit', 'expand', 'resolve']), 'INFO after']
    const evidence = collectLogs([logFile(['one', 'two']), logFile(lines)], [root])
    expect(evidence.files[1]).toMatchObject({ lines: 18, firstLine: 1, folds: [{ line: 16, lines: 1020 }] })
    const excerpt = evidence.text.split('\n')
    const locate = lineLocator(evidence.files)
    // Excerpt line numbers are 1-based and the second file starts at 3.
    const at = (text: string) => excerpt.indexOf(text) + 1
    expect(locate(at(overflow))).toEqual({ file: expect.stringContaining('log-'), label: '12' })
    expect(locate(at('\t\t... 1,020 frames folded (3-frame cycle above, 340 more times)'))?.label).toBe('17-1036')
    expect(locate(at('INFO after'))?.label).toBe(String(lines.length))
    expect(lines[1036]).toBe('INFO after')
    // A file whose lines before the tail were not counted: numbered from its end.
    const big = join(logs, 'big.log')
    writeFileSync(
      big,
      `${'w'.repeat(99)}\n`.repeat(countBytes / 100 + 10_000) +
        `${[overflow, ...recursion(40, ['a']), 'last'].join('\n')}\n`,
    )
    const far = collectLogs([big], [root])
    expect(far.files[0]).toMatchObject({ firstLine: null, folds: [{ line: 498, lines: 39 }] })
    const farLocate = lineLocator(far.files)
    expect([497, 498, 499, 500].map((n) => farLocate(n)?.label)).toEqual([
      '41 from the end',
      '40 from the end',
      '39-1 from the end',
      '0 from the end',
    ])
  })

  it('keeps the bounds, and its work is in proportion to the lines kept and folded', () => {
    // 512 KiB of ordinary lines: only the 500 kept are looked at, and no message line can end a frame.
    const plain = folded(ordinary(20_000))
    expect(plain.lines).toBe(500)
    expect(plain.compared).toBe(0)
    // 20,000 frames that never repeat: the 500 kept are each compared with the 12 lines above them.
    const distinct = folded(Array.from({ length: 20_000 }, (_, i) => `\tat diag.Tree.walk(Tree.java:${i})`))
    expect(distinct.lines).toBe(500)
    expect(distinct.compared).toBeLessThanOrEqual(500 * maxCycle)
    // More frames than the byte window holds: the window is still the last 512 KiB, folded.
    const frames = recursion(30_000, ['visit', 'expand', 'resolve'])
    const deep = readLogTail(logFile([severe, overflow, ...frames]))
    expect(deep.truncated).toBe(true)
    expect(deep.lines).toBeLessThan(10)
    expect(deep.bytes.toString()).not.toContain('StackOverflowError')
    // Folding all of them: each line compared at most once per cycle length and once more per run tried.
    expect(folded(frames).compared).toBeLessThanOrEqual(2 * maxCycle * frames.length)
    // The fold line is never longer than what it replaces.
    const minimal = folded(Array.from({ length: minFolded + 1 }, () => 'at a.b()'))
    expect(minimal.folds).toHaveLength(1)
    expect(minimal.bytes.length).toBeLessThan((minFolded + 1) * 9)
  })

  it('is a frame to the scanner: no rule matches a fold line, and a cause below one keeps its depth', () => {
    for (const cycle of [1, 3, maxCycle]) expect(isFrameSegment(foldLine('\t', 123_456, cycle))).toBe(true)
    const index = PatternIndex.fromSources([
      { key: 'folded', source: 'frames folded' },
      { key: 'refused', source: 'Connection refused' },
    ])
    const lines = [
      'org.example.SyncException: sync failed',
      ...recursion(40, ['retry']),
      'Caused by: java.net.ConnectException: Connection refused',
      '\tat sun.nio.ch.Net.connect0(Native Method)',
    ]
    const tail = folded(lines)
    expect(tail.folds).toHaveLength(1)
    const matches = index.scanExcerpt(excerptOf(tail.bytes))
    expect(matches.has('folded')).toBe(false)
    expect(matches.get('refused')).toMatchObject({ line: 4, causeDepth: 1 })
  })

  it('lets no secret past redaction: what redacting the lines as read hides, redacting them folded hides', () => {
    const runs = [
      recursion(30, ['visit']),
      // Deeper than a YAML key: inside a block scalar, the fold line keeps the value's indentation.
      Array.from({ length: 30 }, (_, i) => `          at diag.Tree.${['walk', 'visit', 'leave'][i % 3]}(Tree.java:7)`),
    ]
    let checked = 0
    for (const sample of [...secretCorpus, ...secretShapes]) {
      const own = sample.line.split('\n')
      for (const run of runs) {
        // The run of frames at every place in and around the sample's lines.
        for (let at = 0; at <= own.length; at++) {
          const lines = [...own.slice(0, at), ...run, ...own.slice(at), 'INFO [main] next', ...run, ...own]
          const raw = redactBytes(Buffer.from(lines.join('\n'))).text
          const tail = folded(lines)
          expect(tail.folds).toHaveLength(2)
          const afterFolding = redactBytes(tail.bytes).text
          for (const secret of sample.secrets) {
            if (!raw.includes(secret)) expect(afterFolding, `${sample.name}, frames at ${at}`).not.toContain(secret)
          }
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(200)
    // A fold line holds no secret word: redaction leaves it as it is.
    const line = foldLine('\t', 1020, 3)
    expect(redactBytes(Buffer.from(line)).text).toBe(line)
  })
})
