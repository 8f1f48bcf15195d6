import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { encodeBundle } from '../../src/rules/bundle/bundle-bounds.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { pgOutboxStore } from '../../src/store/postgres/outbox-store.js'
import { PgWorkQueue } from '../../src/store/postgres/work-queue.js'
import { pgWorkerStore } from '../../src/store/postgres/worker-store.js'
import { alertEvent, reportMail } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// What one event costs in round trips to PostgreSQL on the worker's path (docs/design.md,
// "Storage"): each is a wake-up of a backend and of the replica, and with several replicas
// on a few cores they are what the drain spends. Counted as statements sent on the pool's
// connections (one `query` is one round trip: node-postgres does not pipeline them).

const server = postgresForFile()
beforeAll(() => server.start(), 120_000)
afterAll(() => server.stop())

async function counted() {
  const db = await server.database()
  let sent = 0
  const wrapped = new WeakSet<object>()
  db.pool.on('acquire', (client) => {
    if (wrapped.has(client)) return
    wrapped.add(client)
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    client.query = ((...args: unknown[]) => {
      sent++
      return query(...args)
    }) as typeof client.query
  })
  /** Round trips made by `work`. */
  const roundTrips = async (work: () => Promise<unknown>) => {
    const before = sent
    await work()
    return sent - before
  }
  return { ...db, roundTrips }
}

describe('the worker path on PostgreSQL', () => {
  it('reads an event to process in one round trip, and commits its result in one', async () => {
    const db = await counted()
    try {
      const outcome = await new PgEventWriter(db.pool, { queueCapacity: 10 }).submit({
        receiver: 'r',
        groupKey: 'g',
        principal: 'p',
        alerts: [alertEvent('rt1')],
      })
      if (outcome.kind !== 'accepted') throw new Error(outcome.kind)
      const { eventId, incidentId } = outcome.events[0] as { eventId: string; incidentId: string }
      const [lease] = await new PgWorkQueue(db.pool, { leaseMs: 60_000, maxExpiries: 3 }).claimMany(1)
      if (!lease) throw new Error('a lease expected')
      const store = pgWorkerStore(db.pool)

      let loaded: Awaited<ReturnType<typeof store.load>>
      expect(await db.roundTrips(async () => (loaded = await store.load(eventId)))).toBe(1)
      expect(loaded).toMatchObject({ event: { id: eventId }, processed: false, incident: { id: incidentId } })

      const input = {
        eventId,
        incidentId,
        kind: 'diagnosis' as const,
        result: { branch: 'TD-02' },
        headline: { branch: 'TD-02', ruleName: 'R', category: 'jvm_memory', classification: 'probable_cause' },
        bundle: await encodeBundle({
          evidence: withLogText(emptyEvidence({ alertname: 'A', instance: 'app-01', severity: 'critical' }), 'OOM\n'),
          excerpt: Buffer.from('java.lang.OutOfMemoryError\n'),
          values: {},
        }),
        mail: reportMail(eventId),
        lease,
        now: 7,
      }
      let committed: boolean | undefined
      expect(await db.roundTrips(async () => (committed = await store.commit(input)))).toBe(1)
      expect(committed).toBe(true)
      expect(await db.rows('SELECT count(*)::int AS n FROM evidence_bundles')).toEqual([{ n: 1 }])
      expect(await db.rows('SELECT status, updated_at FROM queue_items')).toEqual([{ status: 'done', updated_at: 7 }])
      expect((await store.load(eventId))?.incident?.headline).toEqual(input.headline)

      // A second commit of the same event (another replica's, its lease expired) writes nothing.
      const again = { ...input, headline: { ...input.headline, branch: 'TD-01' }, now: 8 }
      expect(await db.roundTrips(async () => (committed = await store.commit(again)))).toBe(1)
      expect(committed).toBe(false)
      expect(await db.rows('SELECT subject, created_at FROM outbox')).toEqual([{ subject: 'report', created_at: 7 }])
      expect((await store.load(eventId))?.incident?.headline?.branch).toBe('TD-02')
    } finally {
      await db.close()
    }
  })

  it("records a batch of deliveries' outcomes in one round trip", async () => {
    const db = await counted()
    try {
      const writer = new PgEventWriter(db.pool, { queueCapacity: 10 })
      const store = pgWorkerStore(db.pool)
      for (const name of ['o1', 'o2', 'o3']) {
        const outcome = await writer.submit({
          receiver: 'r',
          groupKey: name,
          principal: 'p',
          alerts: [alertEvent(name)],
        })
        if (outcome.kind !== 'accepted') throw new Error(outcome.kind)
        const { eventId, incidentId } = outcome.events[0] as { eventId: string; incidentId: string }
        const mail = reportMail(eventId, name)
        await store.commit({ eventId, incidentId, kind: 'diagnosis', result: {}, mail, now: 1 })
      }
      const outbox = pgOutboxStore(db.pool, { claimMs: 60_000 })
      const [sent, retried, failed] = await outbox.due(Date.now(), 3)
      if (!sent || !retried || !failed) throw new Error('three mails were due')
      const outcomes = [
        { id: sent.id, attempts: 1, claim: sent.claim, state: 'sent' as const, at: 5 },
        {
          id: retried.id,
          attempts: 1,
          claim: retried.claim,
          state: 'retry' as const,
          nextAttemptAt: 9,
          error: 'refused',
        },
        { id: failed.id, attempts: 5, claim: failed.claim, state: 'failed' as const, error: '550' },
      ]
      expect(await db.roundTrips(() => Promise.resolve(outbox.record(outcomes)))).toBe(1)
      expect(
        await db.rows(
          'SELECT subject, status, attempts, sent_at, next_attempt_at, last_error, claim_token FROM outbox ORDER BY id',
        ),
      ).toEqual([
        {
          subject: 'o1',
          status: 'sent',
          attempts: 1,
          sent_at: 5,
          next_attempt_at: 1,
          last_error: null,
          claim_token: null,
        },
        {
          subject: 'o2',
          status: 'pending',
          attempts: 1,
          sent_at: null,
          next_attempt_at: 9,
          last_error: 'refused',
          claim_token: null,
        },
        {
          subject: 'o3',
          status: 'failed',
          attempts: 5,
          sent_at: null,
          next_attempt_at: 1,
          last_error: '550',
          claim_token: null,
        },
      ])
    } finally {
      await db.close()
    }
  })
})
