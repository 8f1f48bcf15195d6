import { describe, expect, it } from 'vitest'
import { PatternIndex } from '../../src/text/pattern-index.js'
import { isFrameAt } from '../../src/text/stack-frames.js'

// A stack frame names classes and methods, not what went wrong: a pattern found only in
// frames (a thread constructing a ClassNotFoundException, `... 12 more`) is no finding.

const framesOnly = [
  '15-Sep-2023 20:09:00.153 WARNING [Catalina-utility-1] org.apache.catalina.valves.StuckThreadDetectionValve.notifyStuckThreadDetected Thread [http-nio-8080-exec-1] (id=[22]) has been active for [125,838] milliseconds and may be stuck',
  '        java.lang.Throwable',
  '                at java.base@11.0.16/java.lang.ClassNotFoundException.<init>(ClassNotFoundException.java:82)',
  '\tat org.springframework.boot.maven.AbstractRunMojo$LaunchRunner.run (AbstractRunMojo.java:558)',
  'Feb 20 08:40:15 host env[19763]:                 at java.net.UnknownHostException.<init>(UnknownHostException.java:40) ~[na:1.8.0]',
  '\tjava.net.SocketTimeoutException.<init>(SocketTimeoutException.java:48)',
  '\t... 23 more',
  '{"message":"request failed","stack_trace":"java.lang.IllegalStateException: boom\\n\\tat com.example.StackOverflowErrorHandler.handle(StackOverflowErrorHandler.java:10)\\n"}',
].join('\n')

const sources = [
  'java.lang.ClassNotFoundException',
  'java.net.UnknownHostException',
  '/SocketTimeoutException/',
  'StackOverflowError',
  '/\\d+ more/',
]

describe('stack frames are not causes', () => {
  it('tells frame lines (at ..., bare frames, ... N more, JSON-escaped frames) from messages', () => {
    const frame = (line: string, needle: string) => isFrameAt(Buffer.from(line), line.indexOf(needle))
    expect(frame('\tat com.foo.Bar.baz(Bar.java:12)', 'Bar.baz')).toBe(true)
    expect(frame('\t... 5 common frames omitted', 'omitted')).toBe(true)
    expect(frame('Caused by: java.net.ConnectException: Connection refused', 'Connect')).toBe(false)
    expect(frame('java.lang.OutOfMemoryError: Java heap space', 'Java heap')).toBe(false)
    expect(frame('SEVERE: Servlet.service() for servlet [x] threw exception', 'threw')).toBe(false)
    const json = '{"m":"java.lang.StackOverflowError","t":"x\\n\\tat a.B.c(B.java:1)\\n"}'
    expect(frame(json, 'StackOverflowError')).toBe(false)
    expect(frame(json, 'a.B.c')).toBe(true)
  })

  it('finds no match when every occurrence is in a frame, in both scans', () => {
    const index = PatternIndex.fromSources(sources.map((source) => ({ key: source, source })))
    expect([...index.scan(framesOnly).keys()]).toEqual([])
    const { matches } = index.scanRewriting(Buffer.from(framesOnly), (line) => line)
    expect([...matches.keys()]).toEqual([])
  })

  it('finds the message line after frames that name the same exception', () => {
    const log = `${framesOnly}\nCaused by: java.net.UnknownHostException: db.internal\njava.lang.StackOverflowError: null`
    const index = PatternIndex.fromSources(sources.map((source) => ({ key: source, source })))
    for (const matches of [index.scan(log), index.scanRewriting(Buffer.from(log), (line) => line).matches]) {
      expect(matches.get('java.net.UnknownHostException')?.line).toBe(9)
      expect(matches.get('StackOverflowError')?.line).toBe(10)
      expect(matches.has('java.lang.ClassNotFoundException')).toBe(false)
    }
  })
})
