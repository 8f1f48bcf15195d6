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
