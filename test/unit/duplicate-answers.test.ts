import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Db, openDatabase } from '../../src/store/sqlite/database.js'
import { type AlertEventInput, EventWriter, type IngestOutcome } from '../../src/store/sqlite/event-writer.js'
import { pruneOlderThan } from '../../src/store/sqlite/retention.js'
import { alertEvent } from '../helpers/events.js'
import { waitFor } from '../helpers/smtp.js'

// Repeats are answered from memory (src/store/sqlite/duplicate-answers.ts). Each test warms that
// memory with a repeat, changes the incident some other way, and checks the next
// notification sees the change instead of the remembered answer.

const only = (outcome: IngestOutcome) => {
  if (outcome.kind !== 'accepted') throw new Error(outcome.kind)
  return outcome.events[0] as NonNullable<(typeof outcome.events)[0]>
}

describe('duplicate answers', () => {
  let dir: string
  let db: Db
  let writer: EventWriter
  const send = async (alert: AlertEventInput) =>
    only(await writer.submit({ receiver: 'r', groupKey: 'g', principal: 't', alerts: [alert] }))
  const firing = alertEvent('checkout')
  const resolved = alertEvent('checkout', { status: 'resolved', endsAt: firing.startsAt + 60_000 })

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'diag-dupes-'))
    db = openDatabase(join(dir, 'test.db'))
    writer = new EventWriter(db, { queueCapacity: 100 })
  })
  afterEach(() => {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers every repeat with the event and incident it repeats', async () => {
    const first = await send(firing)
    for (let i = 0; i < 3; i++) {
      expect(await send(firing)).toMatchObject({
        duplicate: true,
        transition: 'duplicate',
        eventId: first.eventId,
        incidentId: first.incidentId,
      })
    }
    expect(db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(1)
  })

  it("forgets an identity when this process's own write changes its incident", async () => {
    await send(firing)
    await send(firing)
    expect(await send(resolved)).toMatchObject({ transition: 'resolved' })
    expect(await send(firing)).toMatchObject({ transition: 'refired', duplicate: false })
  })

  it('forgets everything when another connection changes the database', async () => {
    const first = await send(firing)
    await send(firing)
    const other = new Database(join(dir, 'test.db'))
    other
      .prepare("UPDATE incidents SET status = 'resolved', ended_at = 1, closed_at = 1 WHERE id = ?")
      .run(first.incidentId)
    other.close()
    // Another connection's commit is seen within the version-check interval: until then a
    // repeat is still answered as one, and changes nothing.
    const next = await waitFor(
      async () => {
        const answer = await send(firing)
        return answer.transition !== 'duplicate' && answer
      },
      2_000,
      'the change to be seen',
    )
    expect(next).toMatchObject({ transition: 'refired', duplicate: false, incidentId: first.incidentId })
  })

  it('forgets everything when retention removes incidents', async () => {
    const first = await send(firing)
    db.prepare('DELETE FROM queue_items').run() // processed: retention may remove it
    await send(firing)
    expect(pruneOlderThan(db, Date.now() + 60_000).records).toBeGreaterThan(0)
    const again = await send(firing)
    expect(again).toMatchObject({ transition: 'opened', duplicate: false })
    expect(again.incidentId).not.toBe(first.incidentId)
  })
})
