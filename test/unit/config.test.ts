import { mkdtempSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/load.js'

function errorLines(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv')
  } catch (error) {
    if (error instanceof ConfigError) return error.lines
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('loadConfig (D2)', () => {
  it('applies the embedded defaults with nothing set', () => {
    const config = loadConfig({}, '/srv')
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 8443,
      dataDir: '/srv/data',
      tls: {},
      mailFrom: 'diagnostic-service@localhost',
      mailTo: ['sre-oncall@localhost'],
      retentionDays: 30,
      queueCapacity: 50,
      logLevel: 'info',
      workerEnabled: true,
    })
    // One thread less than the CPUs, at least 1 and at most 4.
    expect(config.analysisThreads).toBe(Math.min(4, Math.max(1, availableParallelism() - 1)))
    expect(config.inventoryFile).toMatch(/examples\/inventory\.json$/)
    expect(config.templatesDir).toMatch(/templates$/)
    expect(config.apiToken).toBeUndefined()
    expect(config.smtp).toBeUndefined()
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('parses every variable', () => {
    const config = loadConfig(
      {
        DIAG_HOST: '127.0.0.1',
        DIAG_PORT: '9443',
        DIAG_DATA_DIR: 'var',
        DIAG_TLS_CERT: '/etc/diag/cert.pem',
        DIAG_TLS_KEY: '/etc/diag/key.pem',
        DIAG_TLS_CLIENT_CA: 'client-ca.pem',
        DIAG_API_TOKENS_FILE: '/etc/diag/tokens.json',
        DIAG_API_TOKEN: 'a-long-enough-token',
        DIAG_SMTP_URL: 'smtps://user:pass@mail.example:465',
        DIAG_MAIL_FROM: 'diag@example.com',
        DIAG_MAIL_TO: 'a@example.com, b@example.com',
        DIAG_INVENTORY: 'inventory.json',
        DIAG_TEMPLATES_DIR: '/opt/templates',
        DIAG_RETENTION_DAYS: '7',
        DIAG_QUEUE_CAPACITY: '100',
        DIAG_LOG_LEVEL: 'debug',
        DIAG_ANALYSIS_THREADS: '0',
      },
      '/srv',
    )
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 9443,
      dataDir: '/srv/var',
      tls: { certFile: '/etc/diag/cert.pem', keyFile: '/etc/diag/key.pem', clientCaFile: '/srv/client-ca.pem' },
      apiTokensFile: '/etc/diag/tokens.json',
      apiToken: 'a-long-enough-token',
      smtp: {
        host: 'mail.example',
        port: 465,
        secure: true,
        auth: { user: 'user', pass: 'pass' },
        address: 'mail.example:465',
      },
      mailFrom: 'diag@example.com',
      mailTo: ['a@example.com', 'b@example.com'],
      inventoryFile: '/srv/inventory.json',
      templatesDir: '/opt/templates',
      retentionDays: 7,
      queueCapacity: 100,
      logLevel: 'debug',
      analysisThreads: 0,
    })
  })

  it.each([
    ['DIAG_PORT', 'https', 'DIAG_PORT must be an integer from 0 to 65535 (got "https")'],
    ['DIAG_PORT', '70000', 'DIAG_PORT must be an integer from 0 to 65535 (got "70000")'],
    ['DIAG_RETENTION_DAYS', '0', 'DIAG_RETENTION_DAYS must be an integer from 1 to 3650 (got "0")'],
    ['DIAG_QUEUE_CAPACITY', '-1', 'DIAG_QUEUE_CAPACITY must be an integer from 1 to 1000000 (got "-1")'],
    [
      'DIAG_LOG_LEVEL',
      'verbose',
      'DIAG_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    ],
    ['DIAG_SMTP_URL', 'http://mail', 'DIAG_SMTP_URL must be an smtp:// or smtps:// URL (got "http://mail")'],
    ['DIAG_MAIL_FROM', 'not-an-address', 'DIAG_MAIL_FROM must be one e-mail address (got "not-an-address")'],
    [
      'DIAG_MAIL_TO',
      'a@x.org,,b',
      'DIAG_MAIL_TO must be a comma-separated list of e-mail addresses (got "a@x.org,,b")',
    ],
    ['DIAG_API_TOKEN', 'short', 'DIAG_API_TOKEN must be a token of 16 to 512 visible ASCII characters (got "short")'],
    ['DIAG_WORKER', 'maybe', 'DIAG_WORKER must be on or off (got "maybe")'],
    [
      'DIAG_ANALYSIS_THREADS',
      '65',
      'DIAG_ANALYSIS_THREADS must be an integer from 0 (analyse on the main thread) to 64 (got "65")',
    ],
  ])('names %s=%s in one clear line', (key, value, line) => {
    expect(errorLines({ [key]: value })).toEqual([line])
  })

  it('reports every bad variable at once, one line each', () => {
    expect(errorLines({ DIAG_PORT: 'x', DIAG_RETENTION_DAYS: 'y' })).toHaveLength(2)
  })

  it('requires DIAG_TLS_CERT and DIAG_TLS_KEY together', () => {
    expect(errorLines({ DIAG_TLS_CERT: '/c.pem' })).toEqual([
      'DIAG_TLS_CERT and DIAG_TLS_KEY must be set together (or neither, to generate them)',
    ])
  })

  it('takes DIAG_TLS_SANS as DNS names and IP addresses, canonical, and names each bad entry', () => {
    expect(
      loadConfig({ DIAG_TLS_SANS: ' Diag.Example.org,*.apps.example.org, 203.0.113.7,0:0::1 ' }, '/srv').tls,
    ).toEqual({
      extraNames: ['diag.example.org', '*.apps.example.org', '203.0.113.7', '::1'],
    })
    expect(errorLines({ DIAG_TLS_SANS: 'diag.example.org,diag_01.example.org,,fe80::1%eth0,https://x' })).toEqual([
      'DIAG_TLS_SANS: "diag_01.example.org" is neither a DNS name nor an IP address',
      'DIAG_TLS_SANS: "" is neither a DNS name nor an IP address',
      'DIAG_TLS_SANS: "fe80::1%eth0" is neither a DNS name nor an IP address',
      'DIAG_TLS_SANS: "https://x" is neither a DNS name nor an IP address',
    ])
    expect(errorLines({ DIAG_TLS_SANS: 'diag.example.org', DIAG_TLS_CERT: '/c.pem', DIAG_TLS_KEY: '/k.pem' })).toEqual([
      'DIAG_TLS_SANS names the generated certificate: with DIAG_TLS_CERT, put the names in that certificate',
    ])
  })

  it('treats empty values as unset and collects unknown DIAG_* names as warnings', () => {
    const config = loadConfig({ DIAG_SMTP_URL: '', DIAG_PROT: '1', PATH: '/bin' }, '/srv')
    expect(config.smtp).toBeUndefined()
    expect(config.unknownEnvKeys).toEqual(['DIAG_PROT'])
  })

  it('reads DIAG_CONFIG and lets the environment win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-config-'))
    const file = join(dir, 'config.json')
    writeFileSync(file, JSON.stringify({ DIAG_PORT: 9000, DIAG_RETENTION_DAYS: 10 }))
    const config = loadConfig({ DIAG_CONFIG: file, DIAG_PORT: '9001' }, '/srv')
    expect(config.port).toBe(9001)
    expect(config.retentionDays).toBe(10)

    writeFileSync(file, JSON.stringify({ DIAG_PORTS: 1 }))
    expect(errorLines({ DIAG_CONFIG: file })).toEqual(['DIAG_PORTS: unknown configuration key in DIAG_CONFIG'])
    writeFileSync(file, '{ not json')
    expect(errorLines({ DIAG_CONFIG: file })).toEqual([`DIAG_CONFIG: ${file} must hold one JSON object of DIAG_* keys`])
    expect(errorLines({ DIAG_CONFIG: join(dir, 'missing.json') })[0]).toMatch(/^DIAG_CONFIG: cannot read .*ENOENT/)
  })
})
