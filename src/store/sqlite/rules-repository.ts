import { StoreError } from '../../errors.js'
import type { CustomRule, CustomRuleStore, NewCustomRule } from '../../rules/types.js'
import { exceptionColumns, type RuleRow, toRule } from '../rule-rows.js'
import { type Db, walSync } from './database.js'
import type { StorageHealthPort } from './write-batcher.js'

/** The append-only custom rules table (docs/design.md, "Rules"). */
export class RulesRepository implements CustomRuleStore {
  private readonly statements

  constructor(
    private readonly db: Db,
    private readonly health?: StorageHealthPort,
  ) {
    this.statements = {
      all: db.prepare<[], RuleRow>('SELECT * FROM rules ORDER BY id'),
      byId: db.prepare<[number], RuleRow>('SELECT * FROM rules WHERE id = ?'),
      insert: db.prepare(`INSERT INTO rules (rule_id, branch, rule_name, category, target_source, pattern,
        exception_class, exception_meaning, assessment, classification, confidence, priority, recommended_actions,
        created_by, principal, created_at)
        VALUES (@ruleId, @branch, @ruleName, @category, @targetSource, @pattern, @exceptionClass, @exceptionMeaning,
        @assessment, @classification, @confidence, @priority, @recommendedActions, @createdBy, @principal, @createdAt)`),
    }
  }

  all(): CustomRule[] {
    try {
      return this.statements.all.all().map(toRule)
    } catch (error) {
      throw new StoreError('list rules', { cause: error })
    }
  }

  /** Resolves once the rule is committed and synced (wal-sync.ts): its 201 means it is on stable storage. */
  async insert(rule: NewCustomRule, createdAt: string): Promise<CustomRule> {
    const write = this.db.transaction(() => {
      const { lastInsertRowid } = this.statements.insert.run({
        ...rule,
        ...exceptionColumns(rule),
        recommendedActions: JSON.stringify(rule.recommendedActions),
        createdAt,
      })
      return toRule(this.statements.byId.get(Number(lastInsertRowid)) as RuleRow)
    })
    try {
      const stored = write.immediate()
      await walSync(this.db).durable()
      this.health?.succeeded()
      return stored
    } catch (error) {
      this.health?.failed('rules', error)
      if (error instanceof StoreError) throw error
      if ((error as { code?: string }).code?.startsWith('SQLITE_'))
        throw new StoreError('insert rule', { cause: error })
      throw error
    }
  }
}
