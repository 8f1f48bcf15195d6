import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { alertIdentity } from '../../src/incidents/alert-identity.js'
import { migrationsDir } from '../../src/paths.js'
import { runMigrations } from '../../src/store/sqlite/migrate.js'

// Data stored by the previous version (migrations 1-3) survives the move to the incident
// lifecycle: identities recomputed, one incident per instant, at most one open per alert.

const labels = (id: string) => ({ alertname: 'A', appserver_instance: 'app-01', severity: 'critical', alert_id: id })

function previousVersionDb() {
  const dir = mkdtempSync(join(tmpdir(), 'diag-migrate-'))
  const old = join(dir, 'migrations')
  mkdirSync(old)
  for (const name of ['0001_events_and_queue.sql', '0002_rules.sql', '0003_worker.sql']) {
    copyFileSync(join(migrationsDir, name), join(old, name))
  }
  const db = new Database(join(dir, 'old.db'))
  db.pragma('foreign_keys = ON')
  runMigrations(db, old)
  const event = db.prepare(`INSERT INTO events (id, identity, fingerprint, status, starts_at, ends_at, alertname,
    instance, severity, alert, receiver, group_key, principal, received_at)
    VALUES (?, ?, ?, ?, ?, ?, 'A', 'app-01', 'critical', ?, 'r', 'g', 'p', ?)`)
  const add = (id: string, alertId: string, status: string, startsAt: string, at: number, fp: string | null = null) =>
    event.run(id, fp ?? `old-${id}`, fp, status, startsAt, null, JSON.stringify({ labels: labels(alertId) }), at)
  const incident = db.prepare(`INSERT INTO incidents (id, identity, starts_at, alertname, instance, severity, status,
    firing_event_id, resolved_event_id, opened_at, resolved_at, branch, rule_name, category, classification)
    VALUES (?, ?, ?, 'A', 'app-01', 'critical', ?, ?, ?, ?, ?, 'TD-07', 'EvidenceUnavailable', 'general', 'undetermined')`)
  const queue = db.prepare(
    'INSERT INTO queue_items (event_id, status, available_at, created_at, updated_at) VALUES (?, ?, 0, 0, 0)',
  )
  // One instant sent in two notations: two incidents before.
  add('e1', 'same', 'firing', '2026-11-01T12:00:00+02:00', 1, 'fp1')
  add('e2', 'same', 'firing', '2026-11-01T10:00:00Z', 2)
  incident.run('i1', 'fp1', '2026-11-01T12:00:00+02:00', 'open', 'e1', null, 1, null)
  incident.run('i2', 'old-e2', '2026-11-01T10:00:00Z', 'open', 'e2', null, 2, null)
  db.prepare(`INSERT INTO outbox (event_id, kind, message_id, subject, recipients, text_body, html_body, status,
    next_attempt_at, created_at) VALUES ('e1', 'diagnosis', '<e1@x>', 's', '[]', 't', 'h', 'sent', 0, 0)`).run()
  // Two occurrences left open for one alert.
  add('e3', 'two', 'firing', '2026-11-01T10:00:00Z', 3)
  add('e4', 'two', 'firing', '2026-11-01T11:00:00Z', 4)
  incident.run('i3', 'old-e3', '2026-11-01T10:00:00Z', 'open', 'e3', null, 3, null)
  incident.run('i4', 'old-e4', '2026-11-01T11:00:00Z', 'open', 'e4', null, 4, null)
  // A resolution that found no incident.
  add('e5', 'lost', 'resolved', '2026-11-01T09:00:00Z', 5)
  db.prepare(
    "INSERT INTO results (event_id, incident_id, kind, result, created_at) VALUES ('e5', NULL, 'uncorrelated', '{}', 5)",
  ).run()
  // A firing and its resolution still queued.
  add('e6', 'queued', 'firing', '2026-11-01T10:00:00Z', 6)
  add('e7', 'queued', 'resolved', '2026-11-01T10:00:00Z', 7)
  queue.run('e6', 'queued')
  queue.run('e7', 'queued')
  // A notification stored before labels and annotations were redacted (0007).
  db.prepare(`UPDATE events SET group_key = '{}:{db_password="hunter2-old"}', alert = ? WHERE id = 'e5'`).run(
    JSON.stringify({
      labels: { ...labels('lost'), db_password: 'hunter2-old' },
      annotations: { description: 'datasource url jdbc:mysql://app:S3cretOld@db:3306/x' },
      generatorURL: 'https://prom:S3cretOld@prom.example/graph',
    }),
  )
  return db
}

describe('migration 0004 (incident lifecycle)', () => {
  it('moves the previous version’s events and incidents onto the lifecycle', () => {
    const db = previousVersionDb()
    // 0004 and those after it (0005 adds the custom rules' priority, 0006 believed starts and hearing).
    expect(runMigrations(db)).toEqual([4, 5, 6, 7, 8, 9, 10, 11])
    expect(db.pragma('foreign_key_check')).toEqual([])
    const incidentOf = (eventId: string) =>
      db
        .prepare('SELECT i.* FROM incidents i JOIN events e ON e.incident_id = i.id WHERE e.id = ?')
        .get(eventId) as Record<string, unknown>
    expect(db.prepare('SELECT identity FROM events WHERE id = ?').pluck().get('e1')).toBe(alertIdentity(labels('same')))
    // One instant, one incident: the first one keeps its id.
    expect(incidentOf('e1').id).toBe('i1')
    expect(incidentOf('e2').id).toBe('i1')
    expect(incidentOf('e1').starts_at).toBe(Date.parse('2026-11-01T10:00:00Z'))
    // The older of two open occurrences is superseded by the newer.
    expect(incidentOf('e3')).toMatchObject({ status: 'superseded', ended_at: Date.parse('2026-11-01T11:00:00Z') })
    expect(incidentOf('e4')).toMatchObject({ status: 'open' })
    // The lost resolution is now an incident of its own.
    expect(incidentOf('e5')).toMatchObject({ status: 'resolved', fired: 0 })
    // The queued resolution closed its incident and will send its recovery after the diagnosis.
    expect(incidentOf('e6')).toMatchObject({ status: 'resolved', resolved_event_id: 'e7' })
    expect(db.prepare('SELECT transition, after_event_id FROM events WHERE id = ?').get('e7')).toEqual({
      transition: 'resolved',
      after_event_id: 'e6',
    })
    expect(db.prepare('SELECT count(*) FROM outbox').pluck().get()).toBe(1)
    expect(db.prepare('SELECT count(*) FROM events WHERE incident_id IS NULL').pluck().get()).toBe(0)
    expect(db.prepare("SELECT id FROM incidents WHERE status = 'open' ORDER BY id").pluck().all()).toEqual(['i1', 'i4'])
    // 0007: what was stored before is redacted like what is stored now.
    const stored = db.prepare("SELECT alert || group_key FROM events WHERE id = 'e5'").pluck().get() as string
    expect(stored).not.toMatch(/hunter2-old|S3cretOld/)
    expect(stored).toContain('[REDACTED]')
    // 0006: every incident was last heard at its latest event, and its start is believed.
    expect(
      db
        .prepare(`SELECT count(*) FROM incidents i WHERE start_believed = 1
          AND last_heard_at = (SELECT max(received_at) FROM events WHERE incident_id = i.id)`)
        .pluck()
        .get(),
    ).toBe(db.prepare('SELECT count(*) FROM incidents').pluck().get())
    // At most one open occurrence per alert, by the database itself.
    const open = db.prepare("SELECT * FROM incidents WHERE status = 'open' LIMIT 1").get() as Record<string, unknown>
    expect(() => db.prepare('INSERT INTO incidents SELECT * FROM incidents WHERE id = ?').run(open.id)).toThrow(
      /UNIQUE/,
    )
    expect(() =>
      db
        .prepare(`INSERT INTO incidents (id, identity, fingerprint, starts_at, alertname, instance, severity, status,
          opened_at) VALUES ('x', ?, 'f', ?, 'a', 'i', 's', 'open', 0)`)
        .run(open.identity, (open.starts_at as number) + 1),
    ).toThrow(/UNIQUE constraint failed: incidents.identity/)
  })
})
