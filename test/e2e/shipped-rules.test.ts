import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { cleanEnv, logLines, loopbackEnv } from '../helpers/service-process.js'

// D29: a start trusts the shipped rule files because their bytes are pinned; a file that
// is not the shipped one is what the operator changed, so the start stops with exit 78
// naming it, before anything is registered or served.

/** An installed copy of the built package whose shipped files the test may change. */
function installedCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'diag-installed-'))
  for (const path of ['package.json', 'builtin-rules', 'schemas', 'templates', 'examples', join('dist', 'src')]) {
    cpSync(join(packageRoot, path), join(root, path), { recursive: true })
  }
  mkdirSync(join(root, 'src', 'store', 'sqlite'), { recursive: true })
  cpSync(
    join(packageRoot, 'src', 'store', 'sqlite', 'migrations'),
    join(root, 'src', 'store', 'sqlite', 'migrations'),
    {
      recursive: true,
    },
  )
  symlinkSync(realpathSync(join(packageRoot, 'node_modules')), join(root, 'node_modules'))
  return root
}

describe('a modified shipped rule file', () => {
  const root = installedCopy()
  let child: ReturnType<typeof spawn> | undefined
  afterAll(() => {
    child?.kill('SIGKILL')
    rmSync(root, { recursive: true, force: true })
  })

  it('stops the start with exit 78 and one fatal line naming the file', async () => {
    const seed = join(root, 'builtin-rules', 'seed-rulepack.json')
    writeFileSync(seed, readFileSync(seed, 'utf8').replace('"TD-09"', '"TD-90"'))
    child = spawn(process.execPath, [join(root, 'dist', 'src', 'server.js')], {
      cwd: root,
      env: cleanEnv(loopbackEnv('shipped-e2e-token-00000001', { DIAG_DATA_DIR: join(root, 'data') })),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    const exited = await new Promise((resolve) => child?.on('exit', (code, signal) => resolve({ code, signal })))
    expect(exited).toEqual({ code: 78, signal: null })
    const fatal = logLines(out).filter((line) => line.level === 60)
    expect(fatal).toHaveLength(1)
    expect(fatal[0]).toMatchObject({
      exitCode: 78,
      msg: expect.stringContaining(`failed to start: ${seed}: modified after it was shipped: its SHA-256 is `),
    })
    expect(out).not.toContain('ready on https://')
  }, 30_000)
})
