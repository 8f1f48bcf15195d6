// Garbage-collection events parsed from log lines (GC-01, GC-03 facts). Understands the
// unified JVM logging of JDK 9+ (`GC(12) Pause Full (Allocation Failure) 1980M->1975M(2048M)
// 1234.567ms`) and the legacy JDK 8 format (`[Full GC (Ergonomics) [PSYoungGen: …]
// [ParOldGen: 9000K->8990K(9216K)] …, 7.2680812 secs] [Times: user=… real=7.27 secs]`),
// whose records may span several lines (docs/design.md, "GC logs").
import type { Excerpt } from '../text/excerpt.js'

export interface GcSummary {
  /** Every collection pause logged, young and full. */
  collections: number
  fullCollections: number
  /** Full collections that left the old generation (or the heap) 90 % full or more. */
  fullCollectionsHighOccupancy: number
  maxPauseMs: number
  totalPauseMs: number
  /** The heap after the last collection that logged it (`before->after(capacity)`). */
  heapAfterLast: { usedKiB: number; capacityKiB: number } | null
}

const unifiedDuration = /(\d+(?:\.\d+)?)ms$/
/** A record's total is its last `, N secs]` (the first is the young generation's part). */
const legacyPause = /,\s*(\d+\.\d+)\s+secs\]/g
/** What the application waited: the record's last `real=` (its first may be a nested phase's). */
const legacyReal = /real=(\d+\.\d+) secs/g
/** A legacy record starts with `[GC` or `[Full GC`; `[CMS-concurrent-…` phases are not pauses. */
const legacyStart = /\[(?:Full )?GC\b/
/** A line that starts another record: `[` after a date or uptime stamp, if any (not `[Times:`). */
const recordStamp = /^(?:\d{4}-\d\d-\d\dT\S+: )?(?:\d+\.\d+: )?\[(?!Times:)/
/** The lines a legacy record may span: its tenuring distribution, G1's phase details, a wrap. */
const maxRecordLines = 60
const oldGeneration = /\[(?:ParOldGen|PSOldGen|CMS|Tenured|OldGen): (\d+)K->(\d+)K\((\d+)K\)\]/
const heapTransition = /(?<!: )\b(\d+)([KMG])->(\d+)([KMG])\((\d+)([KMG])\)/
const units = { K: 1, M: 1024, G: 1024 * 1024 } as const

function kib(value: string | undefined, unit: string | undefined): number {
  return Number(value) * (units[unit as keyof typeof units] ?? 1)
}

type HeapAfter = NonNullable<GcSummary['heapAfterLast']>

/** The whole heap after the collection, from its `before->after(capacity)`. */
function heapAfter(line: string): HeapAfter | null {
  const heap = heapTransition.exec(line)
  return heap ? { usedKiB: kib(heap[3], heap[4]), capacityKiB: kib(heap[5], heap[6]) } : null
}

/** Occupancy after the collection (0..1): the old generation where logged, else the heap. */
function occupancyAfter(line: string, heap: HeapAfter | null): number | null {
  const old = oldGeneration.exec(line)
  if (old) return Number(old[2]) / Number(old[3])
  if (!heap) return null
  return heap.capacityKiB > 0 ? heap.usedKiB / heap.capacityKiB : null
}

/**
 * The GC events of a log excerpt. Every GC line holds `GC` or `Pause`: an excerpt without
 * either is not even decoded.
 */
export function summarizeGc(excerpt: Excerpt): GcSummary {
  const summary: GcSummary = {
    collections: 0,
    fullCollections: 0,
    fullCollectionsHighOccupancy: 0,
    maxPauseMs: 0,
    totalPauseMs: 0,
    heapAfterLast: null,
  }
  if (!excerpt.bytes.includes('GC') && !excerpt.bytes.includes('Pause')) return summary
  for (const line of gcRecords(excerpt.text)) {
    const unified = /\bPause\b/.test(line) && !legacyStart.test(line) ? unifiedDuration.exec(line) : null
    const pauseMs = unified ? Number(unified[1]) : legacyPauseMs(line)
    if (pauseMs === null) continue
    summary.collections++
    summary.maxPauseMs = Math.max(summary.maxPauseMs, pauseMs)
    summary.totalPauseMs = Math.round((summary.totalPauseMs + pauseMs) * 1e3) / 1e3
    const heap = heapAfter(line)
    if (heap) summary.heapAfterLast = heap
    const full = unified ? /\bPause Full\b/.test(line) : /\[Full GC\b/.test(line)
    if (!full) continue
    summary.fullCollections++
    const occupancy = occupancyAfter(line, heap)
    if (occupancy !== null && occupancy >= 0.9) summary.fullCollectionsHighOccupancy++
  }
  return summary
}

const lastMatch = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].at(-1)?.[1]

/** A legacy record's pause in ms: its `real=` time when logged, else its total. */
function legacyPauseMs(record: string): number | null {
  if (!legacyStart.test(record)) return null
  const seconds = lastMatch(legacyReal, record) ?? lastMatch(legacyPause, record)
  // Rounded to the microsecond: "7.2680812 secs" is 7268.081 ms, without float noise.
  return seconds === undefined ? null : Math.round(Number(seconds) * 1e6) / 1e3
}

/**
 * The GC records of the text, one string each. A unified-logging line is a record; a
 * legacy record runs from its `[GC`/`[Full GC` line to the line with its `[Times: …]`, or
 * until another record starts, joined with spaces (JDK 8 prints a ParNew's tenuring
 * distribution, or G1's phase details, inside the record).
 */
function* gcRecords(text: string): Generator<string> {
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string
    // A GC line is short; a longer one is not a GC event and is not worth the regexes.
    if (raw.length > 2000 || !/GC|Pause/.test(raw)) continue
    let record = raw.trimEnd()
    if (legacyStart.test(record) && !record.includes('[Times:')) {
      const end = Math.min(lines.length, i + maxRecordLines)
      for (let next = i + 1; next < end; next++) {
        const more = lines[next] as string
        if (recordStamp.test(more) || more.length > 2000) break
        record = `${record} ${more.trim()}`
        i = next
        if (more.includes('[Times:')) break
      }
    }
    yield record
  }
}
