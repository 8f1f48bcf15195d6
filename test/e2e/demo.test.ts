import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { cleanEnv } from '../helpers/service-process.js'

describe('npm run demo', () => {
  it('starts on the embedded defaults, diagnoses the sample alerts and says where the reports are', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-demo-'))
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(packageRoot, 'dist', 'src', 'cli', 'demo.js')],
      {
        cwd,
        // Port 0: the demo honours the DIAG_* settings, so the test needs no free 8443.
        env: cleanEnv({ DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_DATA_DIR: join(cwd, 'demo-data') }),
        timeout: 90_000,
      },
    )
    // One line of a signature and nothing to corroborate it is a probable cause, medium
    // confidence; app-02's container was OOM-killed, which the spool confirms.
    expect(stdout).toMatch(/^app-01\s+resolved\s+TD-02\s+JavaHeapExhausted\s+jvm_memory\s+medium$/m)
    expect(stdout).toMatch(/^app-02\s+open\s+AH-01\s+ContainerOomKilled\s+jvm_memory\s+high$/m)
    expect(stdout).toMatch(/^app-03\s+open\s+TD-09\s+JdbcPoolExhausted\s+database_persistence\s+medium$/m)
    expect(stdout).toMatch(/^app-04\s+open\s+TD-13\s+DownstreamReadTimeout\s+network_integration\s+medium$/m)
    const outbox = readdirSync(join(cwd, 'demo-data', 'outbox'))
    expect(outbox.filter((f) => f.endsWith('-diagnosis.eml'))).toHaveLength(4)
    expect(outbox.filter((f) => f.endsWith('-recovery.eml'))).toHaveLength(1)
    expect(stdout).toContain(join(cwd, 'demo-data', 'outbox'))
    expect(stdout).toMatch(/service ready on https:\/\/127\.0\.0\.1:\d+ /)
  }, 120_000)
})
