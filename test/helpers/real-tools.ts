import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

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
  return realPackage(binary, debianPackage, () => find(binary))
}

/**
 * The same for a package known by a file rather than a binary on the PATH (Tomcat's
 * bootstrap.jar, Jetty's start.jar).
 */
export function realPackageFile(file: string, debianPackage: string): string {
  return realPackage(file, debianPackage, () => (existsSync(file) ? file : undefined))
}

function realPackage(what: string, debianPackage: string, locate: () => string | undefined): string {
  const found = locate()
  if (found) return found
  const root = process.getuid?.() === 0
  if (root && find('apt-get')) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore' })
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', debianPackage], {
      env,
      stdio: 'ignore',
    })
    const installed = locate()
    if (installed) return installed
  }
  throw new Error(
    `${what} not found: install the Debian package '${debianPackage}' (apt-get install ${debianPackage}), ` +
      'or run npm test as root, whose pretest installs it',
  )
}
