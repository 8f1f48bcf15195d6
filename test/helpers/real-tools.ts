import { execFileSync } from 'node:child_process'

const find = (binary: string) => {
  try {
    return execFileSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

/**
 * Finds a binary from Debian's packages, installing the package when it is missing and this
 * user can (root with apt-get, as `npm test`'s pretest does). Otherwise the test fails,
 * naming the package: a suite never passes by skipping what it was written to run.
 */
export function realTool(binary: string, debianPackage: string): string {
  const found = find(binary)
  if (found) return found
  const root = process.getuid?.() === 0
  if (root && find('apt-get')) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore' })
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', debianPackage], {
      env,
      stdio: 'ignore',
    })
    const installed = find(binary)
    if (installed) return installed
  }
  throw new Error(
    `${binary} not found: install the Debian package '${debianPackage}' (apt-get install ${debianPackage}), ` +
      'or run npm test as root, whose pretest installs it',
  )
}
