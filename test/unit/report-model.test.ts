import { describe, expect, it } from 'vitest'
import { gcView } from '../../src/report/report-model.js'

const summary = { collections: 1, fullCollections: 0, fullCollectionsHighOccupancy: 0, maxPauseMs: 1, totalPauseMs: 1 }

describe("the report's GC part", () => {
  it('gives the heap after the last collection with its share of the capacity', () => {
    expect(gcView({ ...summary, heapAfterLast: { usedKiB: 2033664, capacityKiB: 2097152 } }).heapAfter).toBe(
      '1,986 MiB of 2,048 MiB (97 %)',
    )
  })

  it('gives no share when the log says the capacity was 0 (a (0K) transition): no Infinity or NaN in a report', () => {
    expect(gcView({ ...summary, heapAfterLast: { usedKiB: 0, capacityKiB: 0 } }).heapAfter).toBe('0 bytes of 0 bytes')
  })
})
