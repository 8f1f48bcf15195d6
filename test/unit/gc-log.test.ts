import { describe, expect, it } from 'vitest'
import { summarizeGc } from '../../src/evidence/gc-log.js'
import { excerptOfText } from '../../src/text/excerpt.js'

const summary = (log: string) => summarizeGc(excerptOfText(log))

describe('GC log records over several lines', () => {
  it('joins a ParNew record split by its tenuring distribution and counts the pause the application saw (real)', () => {
    const log = [
      '2013-12-16T19:29:58.481+0000: 241069.519: [GC 241107.146: [ParNew',
      'Desired survivor size 69337088 bytes, new threshold 7 (max 7)',
      '- age   1:    4936560 bytes,    4936560 total',
      '  : 1102035K->13267K(1219328K), 0.0266830 secs] 7665864K->6577191K(10350336K), 0.0776960 secs] [Times: user=0.14 sys=0.01, real=37.70 secs]',
    ].join('\n')
    expect(summary(log)).toMatchObject({
      collections: 1,
      maxPauseMs: 37700,
      heapAfterLast: { usedKiB: 6577191, capacityKiB: 10350336 },
    })
  })

  it('takes the record total, not the young generation part, when no times are logged', () => {
    const log = [
      '5075.405: [GC 5075.405: [ParNew: 261760K->261760K(261952K), 0.0000750 ',
      'secs]5075.405: [CMS5081.144: [CMS-concurrent-preclean: 14.653/31.189 secs] ',
      '(concurrent mode failure): 1796901K->1078231K(1835008K), 96.6130290 secs] ',
      '2058661K->1078231K(2096960K) icms_dc=100 , 96.6140400 secs]',
    ].join('\n')
    expect(summary(log)).toMatchObject({ collections: 1, maxPauseMs: 96614.04 })
  })

  it('does not count concurrent phases as pauses, and keeps one-line records as they were', () => {
    const log = [
      '2015-02-13T18:12:03.732+0000: 81702.468: [CMS-concurrent-mark: 4.008/4.072 secs] [Times: user=28.57 sys=1.24, real=4.07 secs]',
      '2016-02-09T00:30:52.886-0500: 1700.401: [Full GC (Ergonomics) [PSYoungGen: 226816K->8237K(289792K)] [ParOldGen: 696487K->697709K(699392K)] 923303K->705947K(989184K), [Metaspace: 85673K->85673K(1126400K)], 7.2680812 secs] [Times: user=14.18 sys=0.01, real=7.27 secs] ',
    ].join('\n')
    expect(summary(log)).toMatchObject({
      collections: 1,
      fullCollections: 1,
      fullCollectionsHighOccupancy: 1,
      maxPauseMs: 7270,
    })
  })
})
