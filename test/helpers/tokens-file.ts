import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** A DIAG_API_TOKENS_FILE in `dir`: each named token with its scopes (README, "Tokens"). */
export function writeTokensFile(dir: string, tokens: Record<string, { token: string; scopes: string[] }>): string {
  const file = join(dir, 'tokens.json')
  writeFileSync(file, JSON.stringify(Object.entries(tokens).map(([name, entry]) => ({ name, ...entry }))))
  return file
}

/** The request options that present `token`. */
export const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
