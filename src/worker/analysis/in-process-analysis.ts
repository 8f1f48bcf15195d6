import { analyzeLogs, type LogAnalysis } from '../../evidence/log-analysis.js'
import type { RedactionOptions } from '../../evidence/redaction-options.js'
import { type Family, loadBuiltinRules } from '../../rules/builtin-loader.js'
import { type Diagnosis, DiagnosisEngine } from '../../rules/diagnosis-engine.js'
import type { BuiltinRule, CustomRule, Evidence } from '../../rules/types.js'
import type { Analysis } from './analysis-pool.js'

/** The built-in rules and their families' versions, as loaded from builtin-rules/. */
type BuiltinCatalogue = { rules: readonly BuiltinRule[]; versions: Record<Family, string> }

/** DIAG_ANALYSIS_THREADS=0: the same analysis and engine, on the main thread. */
export class InProcessAnalysis implements Analysis {
  readonly engine: DiagnosisEngine

  constructor(
    custom: readonly CustomRule[],
    builtin: BuiltinCatalogue = loadBuiltinRules(),
    private readonly redaction: RedactionOptions = {},
  ) {
    this.engine = new DiagnosisEngine(builtin.rules, builtin.versions, custom)
  }

  async ready(): Promise<void> {}

  async analyzeLogs(files: readonly string[], roots: readonly string[]): Promise<LogAnalysis> {
    return analyzeLogs(
      files,
      roots,
      (raw, markers, rewrite) => this.engine.scanRewriting(raw, markers, rewrite),
      this.redaction,
    )
  }

  diagnose(evidence: Evidence): Promise<Diagnosis> {
    return this.engine.diagnose(evidence)
  }

  addCustomRule(rule: CustomRule): void {
    this.engine.addCustomRule(rule)
  }

  /** The main isolate is the service's own to collect (quiet-collection.ts): no thread here. */
  async collect(): Promise<number> {
    return 0
  }

  async close(): Promise<void> {}
}
