import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { RuleRejectedError } from '../../src/rules/rule-errors.js'
import { RulesService } from '../../src/rules/rules-service.js'
import type { CustomRuleInput } from '../../src/rules/types.js'
import { migratePostgres } from '../../src/store/postgres/migrate.js'
import { createPool } from '../../src/store/postgres/pool.js'
import { RuleNotifications } from '../../src/store/postgres/rule-notifications.js'
import { PgRulesRepository } from '../../src/store/postgres/rules-repository.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { RulesRepository } from '../../src/store/sqlite/rules-repository.js'
import { postgresForFile } from '../helpers/postgres.js'
import { waitFor } from '../helpers/smtp.js'

// Custom rules on both adapters, and on PostgreSQL shared by replicas (docs/design.md,
// "Storage"): append-only, unique by branch, name and pattern whoever registers, and live
// on every replica.

const safety = new PatternSafety()
const rule = (branch: string, overrides: Partial<CustomRuleInput> = {}): CustomRuleInput => ({
  branch,
  ruleName: `Rule${branch.replace(/\W/g, '')}`,
  category: 'general',
  targetSource: 'local_file',
  pattern: `marker-${branch}`,
  assessment: 'A test rule.',
  classification: 'probable_cause',
  confidence: 'medium',
  recommendedActions: ['Look.'],
  ...overrides,
})

const server = postgresForFile()
afterAll(() => server.stop())

async function pgReplica(url: string) {
  const pool = createPool(url, { timeoutMs: 10_000, max: 4 })
  await migratePostgres(pool)
  const repository = new PgRulesRepository(pool)
  await repository.load()
  const service = new RulesService(repository, safety)
  const adopted: number[] = []
  service.onRegistered((r) => adopted.push(r.id))
  const known = () => new Set(service.catalogue.custom.map((r) => r.id))
  const notifications = new RuleNotifications(url, repository, known, (r) => service.adopt(r), { warn: () => {} }, 50)
  return { pool, service, adopted, notifications }
}

describe('custom rules on SQLite and PostgreSQL', () => {
  beforeAll(async () => {
    await server.start()
  }, 120_000)

  const adapters = {
    SQLite: async () => {
      const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-rules-conformance-')), 'r.db'))
      return {
        service: new RulesService(new RulesRepository(db), safety),
        mutate: async (sql: string) => db.prepare(sql).run(),
        reload: async () => new RulesRepository(db).all(),
        close: async () => void db.close(),
      }
    },
    PostgreSQL: async () => {
      const url = (await server.database()).url
      const replica = await pgReplica(url)
      return {
        service: replica.service,
        mutate: (sql: string) => replica.pool.query(sql),
        reload: async () => {
          const fresh = new PgRulesRepository(replica.pool)
          await fresh.load()
          return fresh.all()
        },
        close: () => replica.pool.end(),
      }
    },
  }

  it.each(Object.keys(adapters) as Array<keyof typeof adapters>)(
    '%s: stores a rule, refuses a second of the same branch, and refuses to change or delete one',
    async (name) => {
      const store = await adapters[name]()
      try {
        const stored = await store.service.register(rule('X-01'), 'test')
        expect(stored).toMatchObject({ branch: 'X-01', createdBy: 'test' })
        await expect(store.service.register(rule('X-01', { pattern: 'other' }), 'test')).rejects.toMatchObject({
          reason: 'branch_conflict',
        })
        await expect(store.mutate("UPDATE rules SET assessment = 'changed'")).rejects.toThrow(/append-only/)
        await expect(store.mutate('DELETE FROM rules')).rejects.toThrow(/append-only/)
        expect(store.service.catalogue.custom.map((r) => r.branch)).toEqual(['X-01'])
      } finally {
        await store.close()
      }
    },
  )

  it.each(Object.keys(adapters) as Array<keyof typeof adapters>)(
    "%s: stores a rule's exception classes and meanings as lists, and reads them back the same",
    async (name) => {
      const store = await adapters[name]()
      try {
        await store.service.register(rule('X-01'), 'test')
        await store.service.register(
          rule('X-02', {
            exceptionClass: 'java.lang.LinkageError',
            exceptionMeaning: ['class-linkage', 'stack-overflow'],
          }),
          'test',
        )
        expect((await store.reload()).map((r) => [r.branch, r.exceptionClass, r.exceptionMeaning])).toEqual([
          ['X-01', null, null],
          ['X-02', ['java.lang.LinkageError'], ['class-linkage', 'stack-overflow']],
        ])
      } finally {
        await store.close()
      }
    },
  )
})

describe('custom rules across PostgreSQL replicas', () => {
  beforeAll(async () => {
    await server.start()
  }, 120_000)

  it('a rule registered on one replica is live on the others; a missed notification is caught up', async () => {
    const url = (await server.database()).url
    const a = await pgReplica(url)
    const b = await pgReplica(url)
    const c = await pgReplica(url)
    try {
      await b.notifications.start()
      const stored = await a.service.register(rule('Y-01'), 'test')
      await waitFor(() => b.adopted.includes(stored.id), 10_000, 'replica b to take the rule')
      expect(b.service.catalogue.custom.map((r) => r.branch)).toEqual(['Y-01'])
      // Replica c was not listening: its version check before a diagnosis finds the rule.
      expect(c.service.catalogue.custom).toEqual([])
      await c.notifications.fresh()
      expect(c.service.catalogue.custom.map((r) => r.id)).toEqual([stored.id])
    } finally {
      await b.notifications.stop()
      for (const replica of [a, b, c]) await replica.pool.end()
    }
  })

  it('the same branch registered on two replicas at once: one stored, one 409 conflict', async () => {
    const url = (await server.database()).url
    const a = await pgReplica(url)
    const b = await pgReplica(url)
    try {
      const outcomes = await Promise.allSettled([
        a.service.register(rule('Z-01', { ruleName: 'SameOnA', pattern: 'on-a' }), 'test'),
        b.service.register(rule('Z-01', { ruleName: 'SameOnB', pattern: 'on-b' }), 'test'),
      ])
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected'])
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult
      expect(refused.reason).toBeInstanceOf(RuleRejectedError)
      expect(refused.reason.reason).toBe('branch_conflict')
      const { rows } = await (a.pool as pg.Pool).query('SELECT count(*)::int AS n FROM rules')
      expect(rows[0].n).toBe(1)
      // Names that differ in case only are one name for the database too.
      const names = await Promise.allSettled([
        a.service.register(rule('Z-02', { ruleName: 'FoldedName', pattern: 'fold-a' }), 'test'),
        b.service.register(rule('Z-03', { ruleName: 'foldedname', pattern: 'fold-b' }), 'test'),
      ])
      expect(names.map((o) => (o.status === 'rejected' ? o.reason.reason : 'stored')).sort()).toEqual([
        'name_conflict',
        'stored',
      ])
    } finally {
      await a.pool.end()
      await b.pool.end()
    }
  })
})
