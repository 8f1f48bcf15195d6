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

// No config file of the user running the tests is ever read: ~/.config is an empty folder.
const noUserConfig = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'diag-cli-config-')) }

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [diag, ...args], {
      env: cleanEnv({ ...noUserConfig, ...env }),
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string }
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr }
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

  it('pushes an array one rule at a time, skips only identical rules, and lists them', async () => {
    const file = join(dir, 'pack.json')
    writeFileSync(file, JSON.stringify([rule('IMP-01', 'FeedFileMalformed', 'FeedParseException: malformed record')]))
    const push = await cli(['rules', 'push', file, ...connection])
    expect(push.code).toBe(0)
    expect(push.stdout).toContain('IMP-01 FeedFileMalformed: registered as id 11')
    expect(push.stderr).toBe('')
    // Pushing the same content again changes nothing: skipped, exit code 0.
    const again = await cli(['rules', 'push', file, ...connection])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(
      'IMP-01 FeedFileMalformed: already registered as id 11 with the same content, skipped',
    )
    expect(again.stdout).toContain('0 registered, 1 already registered as they are, 0 refused')

    const list = await cli(['rules', 'list', '--category', 'application_lifecycle', ...connection])
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(/^IMP-01\s+11\s+application_lifecycle\s+confirmed_cause\s+high\s+FeedFileMalformed$/m)
    expect(list.stdout).toMatch(/^TD-05\s+builtin-TD-05/m)
  })

  it('refuses a rule whose branch, name or pattern is taken by a different rule, naming it, exit 1', async () => {
    const file = join(dir, 'conflicts.json')
    writeFileSync(
      file,
      JSON.stringify([
        // The seed's TD-09 with other content: not "already present".
        { ...rule('TD-09', 'JdbcPoolExhausted', 'anything at all'), category: 'database_persistence' },
        rule('IMP-06', 'FeedFileMalformed', 'FeedImportAborted'),
        rule('IMP-07', 'FeedAborted', 'FeedParseException: malformed record'),
      ]),
    )
    const push = await cli(['rules', 'push', file, ...connection])
    expect(push.code).toBe(1)
    expect(push.stderr).toMatch(/^TD-09 JdbcPoolExhausted: CONFLICT with rule \d+ \(TD-09 JdbcPoolExhausted\)/m)
    expect(push.stderr).toMatch(/^IMP-06 FeedFileMalformed: CONFLICT with rule 11 \(IMP-01 FeedFileMalformed\)/m)
    expect(push.stderr).toMatch(/^IMP-07 FeedAborted: CONFLICT with rule 11 \(IMP-01 FeedFileMalformed\)/m)
    expect(push.stdout).toContain('0 registered, 0 already registered as they are, 3 refused')

    const json = await cli(['rules', 'push', file, '--json', ...connection])
    expect(json.code).toBe(1)
    const parsed = JSON.parse(json.stdout)
    expect(parsed.results.map((r: { outcome: string }) => r.outcome)).toEqual(['conflict', 'conflict', 'conflict'])
    expect(parsed.results[1].conflictsWith).toEqual({ id: 11, branch: 'IMP-01', ruleName: 'FeedFileMalformed' })
  })

  it('exits 1 when a rule fails for another reason, and says why on stderr', async () => {
    const file = join(dir, 'unsafe.json')
    writeFileSync(file, JSON.stringify(rule('IMP-02', 'FeedRetryStorm', '/(retry+)+ storm/')))
    const push = await cli(['rules', 'push', file, ...connection])
    expect(push.code).toBe(1)
    expect(push.stderr).toContain('IMP-02 FeedRetryStorm: FAILED 400 unsafe_regex_pattern')
  })

  it('explains a rule the schema refuses in words, not regular expressions, and does not send it', async () => {
    const file = join(dir, 'malformed.json')
    const { assessment: _, ...noAssessment } = rule('imp-9', 'x', 'FeedParseException: bad header')
    writeFileSync(
      file,
      JSON.stringify([
        { ...noAssessment, classification: 'Confirmed_Cause', confidence: 'medium', severity: 'high' },
        rule('IMP-10', 'FeedHeaderBad', 'FeedParseException: bad header'),
      ]),
    )
    const push = await cli(['rules', 'push', file, ...connection])
    expect(push.code).toBe(1)
    const lines = push.stderr.split('\n')
    const invalid = lines.indexOf('imp-9 x: INVALID, not sent:')
    expect(invalid).toBeGreaterThanOrEqual(0)
    // One sentence a field, in any order.
    expect(lines.slice(invalid + 1, invalid + 6).sort()).toEqual([
      '  assessment is missing',
      '  branch "imp-9" must be capital letters, a hyphen and two digits, like OPS-31',
      '  confidence "medium" must be high: a confirmed_cause pairs with high confidence',
      '  ruleName "x" must be 3 to 80 letters and digits that start with a letter, like LedgerLockTimeout',
      '  severity is not a field of the rule',
    ])
    // Not one regular expression: no anchors, classes or escapes of a pattern.
    expect(push.stderr).not.toMatch(/\^|\$\W|\[A-Z|\\d|must match/)
    expect(push.stdout).toContain('IMP-10 FeedHeaderBad: registered as id')
    expect(push.stdout).toContain('1 registered, 0 already registered as they are, 1 refused')

    const json = JSON.parse((await cli(['rules', 'push', file, '-o', 'json', ...connection])).stdout)
    expect(json.results[0]).toMatchObject({ rule: 'imp-9 x', outcome: 'invalid' })
    expect(json.results[0].problems).toContain('assessment is missing')
    const list = await cli(['rules', 'list', ...connection])
    expect(list.stdout).not.toMatch(/^imp-9/m)

    const log = join(dir, 'malformed.log')
    writeFileSync(log, 'FeedParseException: bad header\n')
    const tried = await cli(['rules', 'test', file, '--log', log])
    expect(tried.code).toBe(1)
    expect(tried.stderr).toContain('  branch "imp-9" must be capital letters, a hyphen and two digits, like OPS-31')
  })

  it('checks a rulepack against the running service when it can, and says so when it cannot', async () => {
    const log = join(dir, 'check.log')
    writeFileSync(log, '2026-11-22 05:00:01,002 ERROR [main] c.e.imports.FeedImporter - FeedImportAborted\n')
    const pack = join(dir, 'check.json')
    writeFileSync(pack, JSON.stringify([rule('IMP-08', 'FeedFileMalformed', 'FeedImportAborted')]))
    const checked = await cli(['rules', 'test', pack, '--log', log, ...connection])
    expect(checked.code).toBe(1)
    expect(checked.stdout).toContain('IMP-08 FeedFileMalformed: MATCH at line 1')
    expect(checked.stderr).toMatch(/IMP-08 FeedFileMalformed: CONFLICT with rule 11 \(IMP-01 FeedFileMalformed\)/)

    const offline = await cli(['rules', 'test', pack, '--log', log, '--url', 'https://127.0.0.1:9', '--token', token])
    expect(offline.code).toBe(0)
    expect(offline.stderr).toMatch(
      /not checked against a service's catalogue: https:\/\/127\.0\.0\.1:9 is not reachable/,
    )
  })

  it('prints its version, and help with an example for every command', async () => {
    const version = await cli(['--version'])
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
    for (const command of [
      'rules push',
      'rules list',
      'rules test',
      'rules replay',
      'incidents list',
      'incidents show',
    ]) {
      const help = await cli([...command.split(' '), '--help'])
      expect(help.code).toBe(0)
      expect(help.stdout).toContain(`usage: appserver-diag ${command}`)
      expect(help.stdout).toContain(`example:\n  appserver-diag ${command}`)
    }
  })

  it('reads its connection from DIAG_CLI_* variables, and fails clearly with a wrong token', async () => {
    const env = {
      DIAG_CLI_URL: connection[1] as string,
      DIAG_CLI_TOKEN: 'wrong-token-00000000',
      DIAG_CLI_CA: connection[5] as string,
    }
    const list = await cli(['rules', 'list'], env)
    expect(list.code).toBe(1)
    expect(list.stderr).toContain('FAILED 401 unauthorized')
    expect(list.stdout).toBe('')
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
    // Two confirmed custom rules, each found on one line that nothing corroborates: both are
    // probable causes (docs/design.md, "Confidence is earned"). The operator's IMP-03 keeps
    // the custom priority (60); the seed's TD-09 ranks as the built-ins do (80, here 50).
    expect(result.stdout).toContain(
      'primary finding: IMP-03 FeedRecordMalformed (application_lifecycle, probable_cause/medium)',
    )
    expect(result.stdout).toContain('also matched: TD-09')
    expect((await cli(['rules', 'test', pack, '--log', log, '--expect-match'])).code).toBe(1)

    writeFileSync(pack, JSON.stringify(rule('IMP-05', 'Bad', '/(a+)+/')))
    const invalid = await cli(['rules', 'test', pack, '--log', log])
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/IMP-05 Bad: INVALID: unsafe pattern/)
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
    expect(result.stderr).toContain('usage:')
    expect(result.stdout).toBe('')
  })
})
