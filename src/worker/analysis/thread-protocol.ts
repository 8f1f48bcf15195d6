import type { LogAnalysis } from '../../evidence/log-analysis.js'
import type { RedactionOptions } from '../../evidence/redaction-options.js'
import type { Diagnosis } from '../../rules/diagnosis-engine.js'
import type { CustomRule, Evidence } from '../../rules/types.js'

// The messages between the analysis pool (analysis-pool.ts) and its threads (analysis-thread.ts).

export type ThreadRequest =
  | { type: 'rules'; custom: readonly CustomRule[] }
  | { type: 'addRule'; rule: CustomRule }
  | { type: 'analyze'; id: number; files: readonly string[]; roots: readonly string[]; redaction: RedactionOptions }
  | { type: 'diagnose'; id: number; evidence: Evidence }
  /** The pool is quiet: one full, compacting collection of the thread's isolate (idle-period.ts). */
  | { type: 'collect' }

export type ThreadReply =
  /** `tid`: the kernel's id of the thread, whose CPU time bounds its tasks (thread-cpu.ts). */
  | { type: 'ready'; tid: number | null }
  /** `cpuMs`: the thread's CPU clock as it answers, when it begins its next task. */
  | { type: 'done'; id: number; value: LogAnalysis | Diagnosis; cpuMs: number | null }
  | { type: 'failed'; id: number; error: string; cpuMs: number | null }
  /** The collection asked for is done: its milliseconds, or null where gc() is not exposed. */
  | { type: 'collected'; ms: number | null }
