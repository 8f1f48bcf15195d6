import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { packageRoot } from '../../src/paths.js'
import type { CustomRule } from '../../src/rules/types.js'

// What the analysis pool's tests share: the compiled thread script, a small server log and a custom rule.

/** The threads run the compiled script (test/global-setup.ts builds dist/ first). */
export const threadScript = pathToFileURL(join(packageRoot, 'dist', 'src', 'worker', 'analysis', 'analysis-thread.js'))

/** A folder with logs/server.log: a secret, a full collection, two exceptions. */
export function serverLog(): { root: string; logFile: string } {
  const root = mkdtempSync(join(tmpdir(), 'diag-pool-'))
  mkdirSync(join(root, 'logs'))
  const logFile = join(root, 'logs', 'server.log')
  writeFileSync(
    logFile,
    [
      '2026-11-22 05:00:00,001 INFO  [main] starting with -Djavax.net.ssl.keyStorePassword=changeit',
      '[2026-11-22T05:00:01.001+0000][info][gc] GC(7) Pause Full (Allocation Failure) 2040M->1990M(2048M) 2345.678ms',
      'java.lang.OutOfMemoryError: Java heap space',
      '\tat com.example.orders.Export.render(Export.java:212)',
      'com.example.batch.FeedJobException: step failed',
      'tail line',
    ].join('\n'),
  )
  return { root, logFile }
}

export const customRule = (id: number, pattern: string): CustomRule => ({
  id,
  ruleId: null,
  branch: `CX-${id}`,
  ruleName: `Custom${id}`,
  category: 'general',
  targetSource: 'local_file',
  pattern,
  assessment: 'A test rule.',
  classification: 'probable_cause',
  confidence: 'medium',
  priority: null,
  recommendedActions: ['None.'],
  createdBy: 'test',
  createdAt: new Date(0).toISOString(),
})
