import type pg from 'pg'
import { StoreError } from '../../errors.js'
import { RuleRejectedError, type RuleRejection } from '../../rules/rule-errors.js'
import type { CustomRule, CustomRuleStore, NewCustomRule } from '../../rules/types.js'
import { exceptionColumns, type RuleRow, toRule } from '../rule-rows.js'

/** Which conflict a unique constraint of the rules table stands for. */
const conflicts: Record<string, { reason: RuleRejection; path: string; what: string }> = {
  rules_branch_key: { reason: 'branch_conflict', path: '/branch', what: 'branch' },
  rules_rule_name_key: { reason: 'name_conflict', path: '/ruleName', what: 'name' },
  rules_name_folded: { reason: 'name_conflict', path: '/ruleName', what: 'name' },
  rules_pattern_key: { reason: 'pattern_conflict', path: '/pattern', what: 'pattern' },
}

/** The channel a committed rule is announced on; its payload is the rule's id. */
export const rulesChannel = 'diag_rules'

/**
 * The append-only custom rules on PostgreSQL (docs/design.md, "Storage"). `load` reads them
 * before the service starts; `all` is that copy, kept up to date by `insert` and `since`.
 * An insert announces the rule with NOTIFY in its own transaction (delivered on commit), so
 * that every replica's engine takes it; the unique constraints decide between replicas
 * registering the same branch, name or pattern at once, and the loser's 23505 becomes the
 * same 409 the service gives for a conflict it sees itself.
 */
export class PgRulesRepository implements CustomRuleStore {
  private rules: CustomRule[] = []

  constructor(private readonly pool: pg.Pool) {}

  async load(): Promise<void> {
    this.rules = await this.since(0)
  }

  all(): CustomRule[] {
    return this.rules
  }

  /** The rules committed after `id`, in id order. */
  async since(id: number): Promise<CustomRule[]> {
    try {
      const { rows } = await this.pool.query<RuleRow>('SELECT * FROM rules WHERE id > $1 ORDER BY id', [id])
      return rows.map((row) => toRule({ ...row, id: Number(row.id) }))
    } catch (error) {
      throw new StoreError('list rules', { cause: error })
    }
  }

  /**
   * The committed rules this replica does not hold. Ids come from a sequence and commits
   * may land out of their order (and a refused insert leaves a gap), so what is missing is
   * found by id, not by "after the newest known".
   */
  async missing(known: ReadonlySet<number>): Promise<CustomRule[]> {
    const { rows } = await this.pool.query<{ id: number }>('SELECT id::int AS id FROM rules')
    const ids = rows.map((row) => row.id).filter((id) => !known.has(id))
    if (ids.length === 0) return []
    try {
      const found = await this.pool.query<RuleRow>('SELECT * FROM rules WHERE id = ANY($1::bigint[]) ORDER BY id', [
        ids,
      ])
      return found.rows.map((row) => toRule({ ...row, id: Number(row.id) }))
    } catch (error) {
      throw new StoreError('list rules', { cause: error })
    }
  }

  /** The catalogue's version across the cluster: how many rules are committed. */
  async committed(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM rules')
    return rows[0]?.n ?? 0
  }

  async insert(rule: NewCustomRule, createdAt: string): Promise<CustomRule> {
    const client = await this.pool.connect()
    try {
      await client.query('BEGIN')
      const { rows } = await client.query<RuleRow>(
        `INSERT INTO rules (rule_id, branch, rule_name, category, target_source, pattern, assessment, classification,
          confidence, priority, recommended_actions, created_by, principal, created_at, exception_class, exception_meaning)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING *`,
        [
          rule.ruleId,
          rule.branch,
          rule.ruleName,
          rule.category,
          rule.targetSource,
          rule.pattern,
          rule.assessment,
          rule.classification,
          rule.confidence,
          rule.priority,
          JSON.stringify(rule.recommendedActions),
          rule.createdBy,
          rule.principal,
          createdAt,
          ...Object.values(exceptionColumns(rule)),
        ],
      )
      const stored = toRule({ ...(rows[0] as RuleRow), id: Number(rows[0]?.id) })
      await client.query('SELECT pg_notify($1, $2)', [rulesChannel, String(stored.id)])
      await client.query('COMMIT')
      this.rules = [...this.rules, stored].sort((a, b) => a.id - b.id)
      return stored
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      const constraint = (error as { code?: string; constraint?: string }).constraint
      const conflict = (error as { code?: string }).code === '23505' ? conflicts[constraint ?? ''] : undefined
      if (conflict) {
        throw new RuleRejectedError(
          conflict.reason,
          `The ${conflict.what} of rule ${rule.branch} (${rule.ruleName}) was registered by another replica at the same time.`,
          [{ path: conflict.path, message: 'already registered' }],
        )
      }
      throw new StoreError('insert rule', { cause: error })
    } finally {
      client.release()
    }
  }
}
