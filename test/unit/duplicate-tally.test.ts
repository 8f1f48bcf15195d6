import { describe, expect, it } from 'vitest'
import { DuplicateTally } from '../../src/store/duplicate-tally.js'

// The duplicates an incident absorbed, counted by sender in memory and written with their
// hearing (docs/design.md, "An incident's timeline"): a failed write loses none of them.

describe('the duplicate tally', () => {
  it('counts by incident, sender and receiver, and keeps a failed write for the next', () => {
    const tally = new DuplicateTally()
    const a = { principal: 'am-a', receiver: 'diag' }
    tally.count('i1', a, 20)
    tally.count('i1', a, 10)
    tally.count('i1', { principal: 'am-b', receiver: 'diag' }, 15)
    tally.count('i2', a, 30)
    const taken = tally.take()
    expect(tally.size).toBe(0)
    expect(taken).toContainEqual({ incidentId: 'i1', ...a, duplicates: 2, firstAt: 10, lastAt: 20 })
    expect(taken).toHaveLength(3)
    // The write failed; meanwhile one more came in: nothing is lost or counted twice.
    tally.count('i1', a, 40)
    tally.restore(taken)
    const again = tally.take()
    expect(again).toContainEqual({ incidentId: 'i1', ...a, duplicates: 3, firstAt: 10, lastAt: 40 })
    expect(again.reduce((sum, c) => sum + c.duplicates, 0)).toBe(5)
  })
})
