// The shapes shared by the rules module: rule records (D18, D19) and evidence facts.

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
export interface CustomRuleInput {
  ruleId?: string | null
  branch: string
  ruleName: string
  category: Category
  targetSource: 'local_file'
  pattern: string
  assessment: string
  classification: string
  confidence: string
  recommendedActions: string[]
  createdBy?: string
}

/** A stored custom rule, as the API shows it. */
export interface CustomRule {
  id: number
  ruleId: string | null
  branch: string
  ruleName: string
  category: Category
  targetSource: 'local_file'
  pattern: string
  assessment: string
  classification: 'confirmed_cause' | 'probable_cause'
  confidence: 'high' | 'medium'
  recommendedActions: string[]
  createdBy: string
  createdAt: string
}

/** json-rules-engine's condition tree, as the built-in files write it. */
export type Condition =
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition }
  | { fact: string; path?: string; operator: string; value: unknown }

export interface BuiltinRule {
  id: string
  family: 'TD' | 'AH' | 'GC' | 'TH'
  version: string
  ruleId: null
  branch: string
  ruleName: string
  category: Category
  classification: Classification
  confidence: Confidence
  assessment: string
  recommendedActions: string[]
  signatures: string[]
  fallback: boolean
  conditions: Condition
}

export type CatalogueRule = BuiltinRule | CustomRule
export const isBuiltin = (rule: CatalogueRule): rule is BuiltinRule => typeof rule.id === 'string'

/**
 * The evidence of one event as the engine sees it (D14..D17). The evidence module builds
 * it; every field is present, with null or zero where a source gave nothing.
 */
export interface EvidenceFacts {
  /** False when no source produced anything (D21: TD-07). */
  available: boolean
  alert: { alertname: string; instance: string; severity: string }
  /** The redacted log excerpt (at most 500 lines, 512 KiB), or '' without logs. */
  logText: string
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
 * What the rules module needs from storage (implemented by store/rules-repository.ts, so
 * that this module never imports the store).
 */
export interface CustomRuleStore {
  all(): CustomRule[]
  /**
   * Inserts the rule and calls `beforeCommit` with the stored record inside the same
   * transaction: if it throws, nothing is stored.
   */
  insert(rule: NewCustomRule, createdAt: string, beforeCommit: (stored: CustomRule) => void): CustomRule
}
