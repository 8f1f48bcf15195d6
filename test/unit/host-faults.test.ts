import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hostFaultCode } from '../../src/host-faults.js'
import { batchedClaims } from '../../src/queue/batched-claims.js'
import { WorkQueue } from '../../src/queue/work-queue.js'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { RulesService } from '../../src/rules/rules-service.js'
import { Housekeeping } from '../../src/store/housekeeping.js'
import { type Db, openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { pruneOlderThan } from '../../src/store/sqlite/retention.js'
import { RulesRepository } from '../../src/store/sqlite/rules-repository.js'
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js'
import { Worker } from '../../src/worker/worker.js'
import { alertEvent } from '../helpers/events.js'
import { counter } from '../helpers/metrics.js'
import { waitFor } from '../helpers/smtp.js'

// Each path that writes, driven into a real SQLITE_BUSY: a second connection to the same
// file holds the write lock (as an operator's sqlite3 would). Nothing throws out of the
// path, the fault is reported to the storage health, and the path recovers by itself when
// the lock goes (docs/operations.md). The disk-full case runs end to end in
// test/e2e/disk-full.test.ts.

describe('host faults on each path that writes', () => {
  let dir: string
  let db: Db
  let locker: Database.Database
  const faults: string[] = []
  const health = {
    failed: (operation: string, error: unknown) => hostFaultCode(error) && faults.push(operation),
    succeeded: () => {},
  }
  const lock = () => locker.exec('BEGIN IMMEDIATE')
  const unlock = () => locker.exec('ROLLBACK')

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'diag-faults-'))
    db = openDatabase(join(dir, 'diagnostic.db'))
    locker = new Database(join(dir, 'diagnostic.db'))
    faults.length = 0
  })
  afterEach(() => {
    if (locker.inTransaction) unlock()
    locker.close()
    db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('housekeeping: the run fails quietly, is reported, and the next one works', () => {
    const counters = { recordsPruned: counter(), housekeepingRuns: counter(), workerFailures: counter() }
    const log = { info: () => {}, warn: () => {}, error: () => {} }
    const housekeeping = new Housekeeping(
      (cutoff) => pruneOlderThan(db, cutoff).records,
      counters,
      { retentionDays: 30, intervalMs: 3_600_000 },
      log,
      Date.now,
      health,
    )
    lock()
    expect(housekeeping.runOnce()).toBe(0)
    expect(faults).toEqual(['housekeeping'])
    expect(counters.housekeepingRuns.n).toBe(0)
    unlock()
    housekeeping.runOnce()
    expect(counters.housekeepingRuns.n).toBe(1)
  })

  it('rule registration: refused with the fault as its cause, the catalogue unchanged, then accepted', async () => {
    const rules = new RulesService(new RulesRepository(db, health), new PatternSafety())
    const before = rules.catalogue
    const rule = {
      branch: 'LOCK-01',
      ruleName: 'RegisteredWhileLocked',
      category: 'general' as const,
      targetSource: 'local_file' as const,
      pattern: 'a line only this rule knows',
      assessment: 'Registered while another process held the lock.',
      classification: 'probable_cause',
      confidence: 'medium',
      recommendedActions: ['Nothing.'],
    }
    lock()
    const refused = await rules.register(rule, 'test').catch((error: unknown) => error)
    expect(hostFaultCode(refused)).toBe('SQLITE_BUSY')
    expect(faults).toEqual(['rules'])
    expect(rules.catalogue).toBe(before)
    unlock()
    // Nothing of the refused attempt remains: the same rule is not a conflict now.
    expect((await rules.register(rule, 'test')).branch).toBe('LOCK-01')
    expect(rules.find('LOCK-01')).toBeDefined()
  })

  it('the worker: a failed commit and claim spend no attempt, and a fault longer than the lease no expiry', async () => {
    const writer = new EventWriter(db, { queueCapacity: 100 })
    await writer.submit({ receiver: 'r', groupKey: 'g', principal: 'test', alerts: [alertEvent('held')] })
    await writer.submit({ receiver: 'r', groupKey: 'g', principal: 'test', alerts: [alertEvent('queued')] })
    const queue = new WorkQueue(db, { leaseMs: 1000, maxExpiries: 3 })
    const batcher = new WriteBatcher(db, { name: 'worker', health })
    const messages: string[] = []
    const log = {
      info: () => {},
      warn: (_: object, msg: string) => void messages.push(msg),
      error: (_: object, msg: string) => void messages.push(msg),
      child: () => log,
    }
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    let calls = 0
    const worker = new Worker(
      batchedClaims(queue, batcher),
      async (lease, completed) => {
        // The first event takes the lock just before its result is committed, which
        // completes its queue item in the same transaction.
        if (++calls === 1) lock()
        queue.complete(lease)
        completed()
        return 'ok'
      },
      counters,
      {
        concurrency: 1,
        leaseMs: 1000,
        sweepMs: 100,
        pollMs: 100,
        maxAttempts: 5,
        retryBaseMs: 10,
        hostFaultDelayMs: 0,
      },
      log,
    )
    const leaseEnds = Date.now() + 1000
    worker.start()
    await waitFor(() => messages.includes('no claim: the database does not take writes; retrying'), 5000, 'a claim')
    expect(messages).toContain('event not stored for a fault of the host; will retry')
    // Sweeps go on failing after the lease ran out; the process does not fall over.
    await waitFor(
      () =>
        Date.now() > leaseEnds + 300 && messages.filter((m) => m === 'lease sweep waits for the database').length > 3,
      10_000,
      'sweeps after the lease ran out',
    )
    unlock()
    const status = db.prepare('SELECT status, attempts, expiries FROM queue_items ORDER BY id')
    await waitFor(() => status.all().every((row) => (row as { status: string }).status === 'done'), 10_000, 'both done')
    await worker.stop(1000)
    expect(status.all()).toEqual([
      { status: 'done', attempts: 1, expiries: 0 },
      { status: 'done', attempts: 1, expiries: 0 },
    ])
    expect(counters.staleLocksRecovered.n).toBe(0)
    expect(counters.workerFailures.n).toBe(0)
    expect(faults).toContain('worker')
  })
})
