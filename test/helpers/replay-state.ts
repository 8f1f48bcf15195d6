import type { InProcessAnalysis } from '../../src/worker/analysis/analysis-pool.js'
import type { TestService } from './build.js'

/**
 * What a replay must leave as it was (docs/design.md, "Replay"): the rules, the incidents
 * with their branches, the results, the evidence bundles, the mails, the catalogue and the
 * live engine's rules.
 */
export const storedState = async (t: TestService) => ({
  rules: await t.rows('SELECT id, branch FROM rules ORDER BY id'),
  incidents: await t.rows('SELECT id, status, branch, classification FROM incidents ORDER BY id'),
  results: await t.rows('SELECT event_id, created_at FROM results ORDER BY event_id'),
  bundles: await t.rows('SELECT event_id FROM evidence_bundles ORDER BY event_id'),
  outbox: await t.rows('SELECT id, status FROM outbox ORDER BY id'),
  catalogue: t.service.rules.catalogue.custom.length,
  engineRules: (t.service.analysis as InProcessAnalysis).engine.ruleCount,
})
