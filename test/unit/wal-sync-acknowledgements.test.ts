import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sqliteConsoleStore } from '../../src/store/sqlite/console-store.js'
import { closeDatabase, openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { sqliteOutboxStore } from '../../src/store/sqlite/outbox-store.js'
import { alertEvent } from '../helpers/events.js'
import { heldSync, settlesAfterSync } from '../helpers/held-sync.js'

// What SQLite hands out beyond the group commits (the webhook's and the worker's, in
// wal-sync.test.ts) waits for the WAL sync too (docs/design.md, "Durable commits on SQLite").

describe('the outbox on SQLite (D11, D24)', () => {
  it('hands a mail to the sender only once its row, and the outcomes recorded before, are synced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-wal-outbox-'))
    const held = heldSync()
    const db = openDatabase(join(dir, 'diagnostic.db'), undefined, { wrapSync: held.wrap })
    const written = new EventWriter(db, { queueCapacity: 10 }).submit({
      receiver: 'r',
      groupKey: 'g',
      principal: 'p',
      alerts: [alertEvent('mail-01'), alertEvent('mail-02')],
    })
    await held.startedCount(1)
    held.calls[0]?.release()
    await written
    db.exec(`INSERT INTO outbox (event_id, kind, after_event_id, message_id, in_reply_to, subject, recipients,
      text_body, html_body, next_attempt_at, created_at)
      SELECT id, 'diagnosis', NULL, '<' || id || '@diag.test>', NULL, 'report ' || id, '["oncall@example.com"]',
        'text', '<p>html</p>', 0, 0 FROM events`)
    const outbox = sqliteOutboxStore(db)
    // The rows are committed, not yet on stable storage.
    const [row] = await settlesAfterSync(held, 2, outbox.due(Date.now(), 1))
    expect(row).toBeDefined()

    // A `sent` recorded, then the next mail: handed out only after the `sent` is synced.
    await outbox.record([{ id: Number(row?.id), attempts: 1, state: 'sent', at: 1 }])
    expect(await settlesAfterSync(held, 3, outbox.due(Date.now(), 1))).toHaveLength(1)
    await closeDatabase(db)
    rmSync(dir, { recursive: true, force: true })
  })
})

describe('console sessions on SQLite (D11)', () => {
  it('answers a sign-in and a sign-out only once synced: a session signed out never comes back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-wal-console-'))
    const held = heldSync()
    const db = openDatabase(join(dir, 'diagnostic.db'), undefined, { wrapSync: held.wrap })
    const sessions = sqliteConsoleStore(db)
    const now = Date.now()
    const session = {
      idHash: 'h'.repeat(64),
      principal: 'p',
      scopes: ['read'],
      createdAt: now,
      idleUntil: now + 1000,
      expiresAt: now + 2000,
    }
    await settlesAfterSync(held, 1, sessions.createSession(session))
    expect(await settlesAfterSync(held, 2, sessions.deleteSession(session.idHash))).toBe(true)
    await closeDatabase(db)
    rmSync(dir, { recursive: true, force: true })
  })
})
