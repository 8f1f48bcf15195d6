import { execFileSync } from 'node:child_process'

/**
 * Finds a binary from Debian's packages. Where it is missing, tests that need it skip with
 * one loud line, unless REQUIRE_REAL_TOOLS=1 (set by .ci/run), which makes the skip a failure.
 */
export function realTool(binary: string, debianPackage: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).trim()
  } catch {
    const message = `${binary} not found: install the Debian package '${debianPackage}' (apt-get install ${debianPackage})`
    if (process.env.REQUIRE_REAL_TOOLS === '1') throw new Error(`${message}; REQUIRE_REAL_TOOLS=1 forbids skipping`)
    console.warn(`\n!!! SKIPPING: ${message}\n`)
    return undefined
  }
}
