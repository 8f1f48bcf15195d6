import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { cleanEnv, spawnService } from '../helpers/service-process.js'

const run = promisify(execFile)
const token = 'cli-test-token-0000001'
const diag = join(packageRoot, 'dist', 'src', 'cli', 'diag.js')

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout } = await run(process.execPath, [diag, ...args], { env: cleanEnv(env) })
    return { code: 0, stdout }
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string }
    return { code: failure.code, stdout: failure.stdout + failure.stderr }
  }
}

const rule = (branch: string, ruleName: string, pattern: string) => ({
  branch,
  ruleName,
  category: 'application_lifecycle',
  targetSource: 'local_file',
  pattern,
  assessment: 'The order importer stopped on a malformed feed file.',
  classification: 'confirmed_cause',
  confidence: 'high',
  recommendedActions: ['Find the feed file.', 'Quarantine it.', 'Re-run the import.', 'Tell the feed owner.'],
})

describe('diag rules (the rulepack CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-cli-'))
  let service: ReturnType<typeof spawnService>
  let connection: string[]
  beforeAll(async () => {
    service = spawnService(
      { DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_API_TOKEN: token, DIAG_LOG_LEVEL: 'warn' },
      dir,
    )
    const url = await service.ready
    connection = ['--url', url, '--token', token, '--ca', join(dir, 'data', 'tls', 'ca.pem')]
  })
  afterAll(() => service.child.kill('SIGKILL'))

  it('pushes an array one rule at a time, skipping 409 duplicates, and lists them', async () => {
    const file = join(dir, 'pack.json')
    writeFileSync(
      file,
      JSON.stringify([
        rule('IMP-01', 'FeedFileMalformed', 'FeedParseException: malformed record'),
        { ...rule('TD-09', 'JdbcPoolExhausted', 'anything'), category: 'database_persistence' },
      ]),
    )
    const push = await cli(['rules', 'push', file, ...connection])
    expect(push.code).toBe(0)
    expect(push.stdout).toContain('IMP-01 FeedFileMalformed: registered as id 11')
    expect(push.stdout).toMatch(/TD-09 JdbcPoolExhausted: skipped, already registered \(rule_branch_conflict/)
    // Pushing again is idempotent: everything is skipped, the exit code stays 0.
    const again = await cli(['rules', 'push', file, ...connection])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('IMP-01 FeedFileMalformed: skipped')

    const list = await cli(['rules', 'list', '--category', 'application_lifecycle', ...connection])
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(/^IMP-01\s+11\s+application_lifecycle\s+confirmed_cause\s+high\s+FeedFileMalformed$/m)
    expect(list.stdout).toMatch(/^TD-05\s+builtin-TD-05/m)
  })

  it('exits 1 when a rule fails for another reason, and says why', async () => {
    const file = join(dir, 'unsafe.json')
    writeFileSync(file, JSON.stringify(rule('IMP-02', 'FeedRetryStorm', '/(retry+)+ storm/')))
    const push = await cli(['rules', 'push', file, ...connection])
    expect(push.code).toBe(1)
    expect(push.stdout).toContain('IMP-02 FeedRetryStorm: FAILED 400 unsafe_regex_pattern')
  })

  it('reads its connection from DIAG_CLI_* variables, and fails clearly with a wrong token', async () => {
    const env = {
      DIAG_CLI_URL: connection[1] as string,
      DIAG_CLI_TOKEN: 'wrong-token-00000000',
      DIAG_CLI_CA: connection[5] as string,
    }
    const list = await cli(['rules', 'list'], env)
    expect(list.code).toBe(1)
    expect(list.stdout).toContain('FAILED 401 unauthorized')
  })

  it('tests a rulepack offline against a log file, with the service engine', async () => {
    const log = join(dir, 'server.log')
    writeFileSync(
      log,
      [
        '2026-11-22 05:00:00,001 INFO  [main] c.e.imports.FeedImporter - importing feed orders-20261122.csv',
        '2026-11-22 05:00:01,002 ERROR [main] c.e.imports.FeedImporter - import failed',
        'com.example.imports.FeedParseException: malformed record at line 4711',
        'java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.',
      ].join('\n'),
    )
    const pack = join(dir, 'try.json')
    writeFileSync(
      pack,
      JSON.stringify([
        rule('IMP-03', 'FeedRecordMalformed', '/FeedParseException: malformed record at line [0-9]{1,9}/'),
        rule('IMP-04', 'FeedMissing', 'FeedNotFoundException'),
      ]),
    )
    const result = await cli(['rules', 'test', pack, '--log', log])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      'IMP-03 FeedRecordMalformed: MATCH at line 3: com.example.imports.FeedParseException: malformed record at line 4711',
    )
    expect(result.stdout).toContain('IMP-04 FeedMissing: no match')
    // Two confirmed custom rules: the lower id (the seed's TD-09) ranks first (D21).
    expect(result.stdout).toContain(
      'primary finding: TD-09 JdbcPoolExhausted (database_persistence, confirmed_cause/high)',
    )
    expect(result.stdout).toContain('also matched: IMP-03')
    expect((await cli(['rules', 'test', pack, '--log', log, '--expect-match'])).code).toBe(1)

    writeFileSync(pack, JSON.stringify(rule('IMP-05', 'Bad', '/(a+)+/')))
    const invalid = await cli(['rules', 'test', pack, '--log', log])
    expect(invalid.code).toBe(1)
    expect(invalid.stdout).toMatch(/IMP-05 Bad: INVALID: unsafe pattern/)
  })

  it('redacts the log before matching and printing, as the service does (D15)', async () => {
    const log = join(dir, 'secret.log')
    writeFileSync(log, '2026-11-22 05:00:00,001 ERROR [main] c.e.Login - rejected password=Tr0ub4dor&3 for admin\n')
    const pack = join(dir, 'secret.json')
    writeFileSync(pack, JSON.stringify(rule('SEC-01', 'LeakedPassword', 'Tr0ub4dor')))
    const result = await cli(['rules', 'test', pack, '--log', log])
    expect(result.stdout).toContain('SEC-01 LeakedPassword: no match')
    writeFileSync(pack, JSON.stringify(rule('SEC-02', 'LoginRejected', 'rejected password=')))
    const redacted = await cli(['rules', 'test', pack, '--log', log])
    expect(redacted.stdout).toContain('SEC-02 LoginRejected: MATCH at line 1')
    expect(redacted.stdout).toContain('rejected password=[REDACTED]')
    expect(redacted.stdout).not.toContain('Tr0ub4dor')
  })

  it('prints the usage with exit code 2 for an unknown command', async () => {
    const result = await cli(['rules', 'delete', 'TD-09'])
    expect(result.code).toBe(2)
    expect(result.stdout).toContain('usage:')
  })
})
