import type { RulesService } from '../rules-service.js'
import type { CustomRuleInput } from '../types.js'
import type { ReplayRunner } from './replay-runner.js'
import type { BundleSource, ReplayResult } from './replay-types.js'

/** A replay is already running in this process: 503 with Retry-After (docs/api.md). */
export class ReplayBusyError extends Error {
  constructor() {
    super('A replay is already running on this replica; retry when it has finished.')
    this.name = 'ReplayBusyError'
  }
}

/**
 * Replay before registering (docs/design.md, "Replay"): the candidates pass every check of
 * `POST /api/v1/rules` (RulesService.checkAll: schema-valid input, conflicts, the limit, the
 * pattern's safety proof and cost), then are evaluated with the catalogue they were checked
 * against on engines of their own, over the stored evidence of the last `last` diagnosed
 * events. Nothing is stored, no live engine is touched. One replay at a time per process.
 */
export class ReplayService {
  private running = false

  constructor(
    private readonly rules: Pick<RulesService, 'checkAll'>,
    private readonly bundles: BundleSource,
    private readonly runner: ReplayRunner,
  ) {}

  async replay(inputs: readonly CustomRuleInput[], last: number, principal: string): Promise<ReplayResult> {
    if (this.running) throw new ReplayBusyError()
    this.running = true
    try {
      const { candidates, catalogue } = await this.rules.checkAll(inputs, principal)
      const builtin = { rules: catalogue.builtins, versions: catalogue.builtinVersions }
      const job = { builtin, custom: catalogue.custom, candidates, requested: last }
      return await this.runner.run(job, this.bundles.newest(last))
    } finally {
      this.running = false
    }
  }
}
