import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createAjv } from '../ajv.js'
import { schemaErrorsInWords } from '../schema-words.js'
import type { ClientOptions } from './client.js'

/** The connection flags of every command that calls the service. */
export interface ConnectionFlags {
  url?: string | undefined
  token?: string | undefined
  'token-file'?: string | undefined
  ca?: string | undefined
  config?: string | undefined
}

/** The config file: where the service is and where its token and CA certificate are. */
interface ConnectionFile {
  url?: string
  tokenFile?: string
  caFile?: string
}

const validateFile = createAjv({ verbose: true }).compile<ConnectionFile>({
  type: 'object',
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^https://' },
    tokenFile: { type: 'string', minLength: 1, maxLength: 4096 },
    caFile: { type: 'string', minLength: 1, maxLength: 4096 },
  },
})

/** `$XDG_CONFIG_HOME/appserver-diag/config.json`, by default `~/.config/appserver-diag/config.json`. */
export function defaultConfigFile(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config')
  return join(base, 'appserver-diag', 'config.json')
}

/**
 * The config file named by --config or DIAG_CLI_CONFIG (which must exist), else the default
 * one when it exists. Paths in it are relative to its folder.
 */
function readConnectionFile(flags: ConnectionFlags, env: Record<string, string | undefined>, cwd: string) {
  const named = flags.config ?? (env.DIAG_CLI_CONFIG || undefined)
  const file = named ? resolve(cwd, named) : defaultConfigFile(env)
  if (!existsSync(file)) {
    if (named) throw new Error(`config file not found: ${file}`)
    return { file: null, settings: {} as ConnectionFile }
  }
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(`config file ${file} is not JSON: ${(error as Error).message}`)
  }
  if (!validateFile(data)) {
    throw new Error(`config file ${file}: ${schemaErrorsInWords(validateFile.errors, 'config file').join('; ')}`)
  }
  const at = (path: string | undefined) => (path === undefined ? undefined : resolve(dirname(file), path))
  return { file, settings: { url: data.url, tokenFile: at(data.tokenFile), caFile: at(data.caFile) } }
}

function readTokenFile(file: string, from: string): string {
  if (!existsSync(file)) throw new Error(`token file not found: ${file} (${from})`)
  const token = readFileSync(file, 'utf8').trim()
  if (!token) throw new Error(`token file is empty: ${file} (${from})`)
  return token
}

/**
 * Where the CLI connects, each setting from the first place that has it: flags (--url,
 * --token or --token-file, --ca), then the environment (DIAG_CLI_URL, DIAG_CLI_TOKEN or
 * DIAG_CLI_TOKEN_FILE or DIAG_API_TOKEN, DIAG_CLI_CA), then the config file (url, tokenFile,
 * caFile), then what a local `npm start` creates (https://localhost:8443, ./data/api-token,
 * ./data/tls/ca.pem). README, "The appserver-diag command line".
 */
export function clientOptions(
  flags: ConnectionFlags,
  env: Record<string, string | undefined>,
  cwd = process.cwd(),
): ClientOptions {
  // A variable set to the empty string counts as unset, as in a shell.
  const variable = (name: string) => env[name] || undefined
  const { file, settings } = readConnectionFile(flags, env, cwd)
  const url = flags.url ?? variable('DIAG_CLI_URL') ?? settings.url ?? 'https://localhost:8443'
  const localToken = resolve(cwd, 'data', 'api-token')
  const tokenFile = variable('DIAG_CLI_TOKEN_FILE')
  const token =
    flags.token ??
    (flags['token-file'] ? readTokenFile(resolve(cwd, flags['token-file']), '--token-file') : undefined) ??
    variable('DIAG_CLI_TOKEN') ??
    (tokenFile ? readTokenFile(resolve(cwd, tokenFile), 'DIAG_CLI_TOKEN_FILE') : undefined) ??
    variable('DIAG_API_TOKEN') ??
    (settings.tokenFile ? readTokenFile(settings.tokenFile, `tokenFile of ${file}`) : undefined) ??
    (existsSync(localToken) ? readFileSync(localToken, 'utf8').trim() : undefined)
  if (!token) {
    throw new Error(
      `no API token: pass --token or --token-file, set DIAG_CLI_TOKEN, or name a tokenFile in ${file ?? defaultConfigFile(env)}`,
    )
  }
  const named = flags.ca ?? variable('DIAG_CLI_CA')
  const caFile = named ? resolve(cwd, named) : (settings.caFile ?? resolve(cwd, 'data', 'tls', 'ca.pem'))
  const ca = existsSync(caFile) ? readFileSync(caFile) : undefined
  // Only the local default may be absent (then the system's CAs are trusted).
  if (!ca && (named || settings.caFile)) throw new Error(`CA file not found: ${caFile}`)
  return { url: url.replace(/\/$/, ''), token, ...(ca ? { ca } : {}) }
}
