/** A rule the rules API accepts, as an SRE would send it; `overrides` change or add fields. */
export const validRule = (overrides: Record<string, unknown> = {}) => ({
  ruleId: 'OrdersBatchFailed',
  branch: 'TD-19',
  ruleName: 'LedgerLockTimeout',
  category: 'database_persistence',
  targetSource: 'local_file',
  pattern: '/LedgerLockTimeout: lock on account [0-9]{1,12} not granted/',
  assessment: 'The ledger service could not lock an account row in time.',
  classification: 'CONFIRMED_CAUSE',
  confidence: 'HIGH',
  recommendedActions: [
    'Find the transaction holding the lock.',
    'Check ledger batch timing.',
    'Shorten the batch transactions.',
    'Retry the batch.',
  ],
  ...overrides,
})

/**
 * A candidate for a replay (docs/api.md, "Replay a candidate rule"): a probable cause at
 * priority 100 that matches a line of examples/logs/app-01, so it outranks TD-02 there
 * (uncorroborated, priority 50) and changes that incident's branch.
 */
export const exportRunawayRule = validRule({
  ruleId: undefined,
  branch: 'RP-01',
  ruleName: 'ReportExportRunaway',
  category: 'application_lifecycle',
  pattern: '/export [0-9]{1,8} started for customer/',
  classification: 'PROBABLE_CAUSE',
  confidence: 'MEDIUM',
  priority: 100,
})

/** A probable cause at the lowest priority: on app-01 it only adds a finding (a replay lists it apart). */
export const startedLatelyRule = validRule({
  ruleId: undefined,
  branch: 'RP-02',
  ruleName: 'TomcatStartedLately',
  category: 'application_lifecycle',
  pattern: 'Server startup in',
  classification: 'PROBABLE_CAUSE',
  confidence: 'MEDIUM',
  priority: 1,
})

/** Candidates registration refuses, each for another check: schema, pattern safety, conflicts, meanings. */
export const refusedRules = [
  validRule({ classification: 'SOMETIMES' }),
  { ...validRule(), pattern: undefined },
  validRule({ pattern: '/(a+)+$/' }),
  validRule({ branch: 'TD-01' }),
  validRule({ ruleName: 'JdbcPoolExhausted' }),
  validRule({ exceptionMeaning: ['no-such-meaning'] }),
]
