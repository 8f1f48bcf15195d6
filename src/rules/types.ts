import type { Rule as BuiltinRuleRecord, TopCondition } from '../schema-types/builtin-rule-file.js'
import type { CustomRuleInput } from '../schema-types/custom-rule-input.js'
import type { ExceptionRecord } from '../text/exceptions/records.js'
import type { PatternMatch } from '../text/pattern-index.js'

// The shapes shared by the rules module: rule records (docs/design.md, "Rules") and evidence.

export const categories = [
  'jvm_memory',
  'concurrency_threading',
  'database_persistence',
  'network_integration',
  'application_lifecycle',
  'storage_os_limits',
  'security_session',
  'general',
] as const
export type Category = (typeof categories)[number]
export type Classification = 'confirmed_cause' | 'probable_cause' | 'undetermined'
export type Confidence = 'high' | 'medium' | null

/** What a client sends to POST /api/v1/rules, after schema validation. */
export type { CustomRuleInput }

/** A stored custom rule, as the API shows it. */
export interface CustomRule {
  id: number
  ruleId: string | null
  branch: string
  ruleName: string
  category: Category
  targetSource: 'local_file'
  pattern: string
  /**
   * Exception classes that match besides the pattern, each with its subclasses by the
   * taxonomy (docs/api.md); null or absent: none. Normalized to a list.
   */
  exceptionClass?: string[] | null
  /** Exception meanings of the taxonomy that match besides the pattern; null or absent: none. */
  exceptionMeaning?: string[] | null
  assessment: string
  classification: 'confirmed_cause' | 'probable_cause'
  confidence: 'high' | 'medium'
  /** Its rank among findings of the same earned classification; null: by its classification (docs/design.md, "Ranking"). */
  priority: number | null
  recommendedActions: string[]
  createdBy: string
  createdAt: string
}

/** A built-in rule as its family file holds it (schemas/builtin-rules.schema.json), and where it came from. */
export interface BuiltinRule extends BuiltinRuleRecord {
  id: string
  family: 'TD' | 'AH' | 'GC' | 'TH'
  version: string
  ruleId: null
  /** The log patterns its conditions test (`log matches <pattern>`), derived from them. */
  patterns: string[]
  /** The exception meanings its conditions test (`exceptionMeanings contains <meaning>`), derived from them. */
  meanings: string[]
  conditions: TopCondition
}

export type CatalogueRule = BuiltinRule | CustomRule
export const isBuiltin = (rule: CatalogueRule): rule is BuiltinRule => typeof rule.id === 'string'

/** What the shared scanner found in a log excerpt: the first matching line of each pattern. */
export type LogMatches = ReadonlyMap<string, PatternMatch>

/**
 * The evidence of one event (docs/design.md, "Evidence"), as the evidence module gathers
 * it or a test writes it; rules/facts.ts turns it into the engine's facts. Every field is
 * present, with null or zero where a source gave nothing.
 */
export interface Evidence {
  /** False when no source produced anything (the engine's TD-07). */
  available: boolean
  alert: { alertname: string; instance: string; severity: string }
  /**
   * The (redacted) log excerpt, or what the scanner and the exception reader found in it
   * when it was read and redacted (the worker's analysis); both give the same `log` and
   * `exceptions` facts.
   */
  log: { text: string } | { matches: LogMatches; exceptions: ExceptionRecord[] }
  gc: { fullCollections: number; fullCollectionsHighOccupancy: number; maxPauseMs: number }
  container: {
    events: number
    oomKilled: boolean
    /** Exits by SIGABRT (134) or SIGSEGV (139). */
    crashExits: number
    /** Non-zero exits other than 134, 137, 139 and 143. */
    errorExits: number
    exitCodes: number[]
  }
  metrics: { heapUsedRatio: number | null; threads: number | null }
  probe: {
    outcome: 'ok' | 'http_error' | 'timeout' | 'refused' | 'error' | 'unavailable'
    statusCode: number | null
    latencyMs: number | null
  }
}

/** A custom rule ready to store: normalized and checked, without id and time. */
export type NewCustomRule = Omit<CustomRule, 'id' | 'createdAt'> & { principal: string }

/**
 * What the rules module needs from storage (implemented by store/sqlite/rules-repository.ts, so
 * that this module never imports the store).
 */
export interface CustomRuleStore {
  /** Every custom rule by id, as far as this process knows (PostgreSQL: loaded before the service starts). */
  all(): CustomRule[]
  /**
   * Inserts the rule; returns the stored record once committed. A conflict the database
   * found (another replica registered the same branch first) is a RuleRejectedError.
   */
  insert(rule: NewCustomRule, createdAt: string): CustomRule | Promise<CustomRule>
}
