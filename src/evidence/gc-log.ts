// Garbage-collection events parsed from log lines (GC-01, GC-03 facts). Understands the
// unified JVM logging of JDK 9+ (`GC(12) Pause Full (Allocation Failure) 1980M->1975M(2048M)
// 1234.567ms`) and the legacy JDK 8 format (`[Full GC (Ergonomics) [PSYoungGen: …]
// [ParOldGen: 9000K->8990K(9216K)] …, 7.2680812 secs]`).
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
const legacyPause = /, (\d+\.\d+) secs\]/
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
  for (const raw of excerpt.text.split('\n')) {
    // A GC line is short; a longer one is not a GC event and is not worth the regexes.
    if (raw.length > 2000 || !/GC|Pause/.test(raw)) continue
    const line = raw.trimEnd()
    const unified = /\bPause\b/.test(line) ? unifiedDuration.exec(line) : null
    const legacy = unified ? null : legacyPause.exec(line)
    // Rounded to the microsecond: "7.2680812 secs" is 7268.081 ms, without float noise.
    const pauseMs = unified ? Number(unified[1]) : legacy ? Math.round(Number(legacy[1]) * 1e6) / 1e3 : null
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
