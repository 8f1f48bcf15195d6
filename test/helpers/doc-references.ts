import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * What an operator's document names and the service must have: environment variables,
 * metric families, npm scripts, command lines and repository paths, each with the line it
 * is written on (test/unit/docs-consistency.test.ts).
 */
export interface DocReference {
  kind: 'variable' | 'metric' | 'script' | 'command' | 'path'
  /** As written; a name ending in `*` stands for every name with that prefix. */
  name: string
  line: number
}

/** The top-level folders whose paths a document may name (`data/` is the service's, at run time). */
export const pathRoots = [
  'src',
  'test',
  'examples',
  'schemas',
  'templates',
  'docs',
  'builtin-rules',
  'bench',
  'dist',
  'data',
]

const finders: Array<{ kind: DocReference['kind']; pattern: RegExp; code?: true }> = [
  { kind: 'variable', pattern: /\bDIAG_[A-Z0-9]+(?:_[A-Z0-9]+)*(?:_?\*)?/g },
  { kind: 'metric', pattern: /\bdiagnostic_[a-z0-9]+(?:_[a-z0-9]+)*(?:_?\*)?/g },
  { kind: 'script', pattern: /\bnpm (?:run(?: --silent)? [\w:.-]+|start|test)\b/g },
  {
    kind: 'path',
    // Not after a word, dot or slash: /opt/diagnostic-service/dist/... is the host's, not ours.
    pattern: new RegExp(`(?<![\\w./-])(?:\\./)?(?:${pathRoots.join('|')})/(?:[\\w.*@-]|\\{[\\w.,-]*\\}|/)*`, 'g'),
  },
  // Only in code, without shell comments: prose may say "appserver-diag on the PATH".
  {
    kind: 'command',
    pattern: /(?:\bappserver-diag|\bnpm run diag --|dist\/src\/cli\/diag\.js)(?:[ \t]+[a-z][\w-]*){0,2}/g,
    code: true,
  },
]

/** Every reference in a Markdown document, with its line number. */
export function docReferences(markdown: string): DocReference[] {
  const references: DocReference[] = []
  const code = codeOnly(markdown)
  for (const { kind, pattern, code: inCode } of finders) {
    const text = inCode ? code : markdown
    for (const match of text.matchAll(pattern)) {
      const line = text.slice(0, match.index).split('\n').length
      references.push({ kind, name: tidy(kind, match[0]), line })
    }
  }
  return references
}

function tidy(kind: DocReference['kind'], written: string): string {
  if (kind === 'script') return written.replace(/^npm (?:run(?: --silent)? )?/, '')
  if (kind === 'path') return written.replace(/^\.\//, '').replace(/[.]+$/, '')
  if (kind === 'command') {
    return written
      .replace(/^.*?(?:appserver-diag|npm run diag --|diag\.js)/, '')
      .trim()
      .replace(/[ \t]+/g, ' ')
  }
  return written
}

/**
 * The document with everything but code blanked (line breaks kept, so line numbers hold):
 * fenced blocks without their shell comments, and inline code spans.
 */
function codeOnly(markdown: string): string {
  let fenced = false
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced
        return ''
      }
      if (fenced) return line.replace(/(^|\s)#.*$/, '')
      return [...line.matchAll(/`([^`]+)`/g)].map((span) => span[1]).join(' ; ')
    })
    .join('\n')
}

/**
 * Whether a repository path exists under `root`. A path may hold globs as the docs write
 * them: `*`, `NNNN` (four digits) and `{a,b}` alternatives.
 */
export function pathExists(root: string, path: string): boolean {
  return walk(
    root,
    path.split('/').filter((segment) => segment !== ''),
  )
}

function walk(dir: string, segments: string[]): boolean {
  const [segment, ...rest] = segments
  if (segment === undefined) return true
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return false
  }
  const matches = segmentPattern(segment)
  return entries.some((entry) => matches.test(entry) && walk(join(dir, entry), rest))
}

function segmentPattern(segment: string): RegExp {
  const source = segment
    .split(/(\{[^}]*\}|\*|NNNN)/)
    .map((part) => {
      if (part === '*') return '.*'
      if (part === 'NNNN') return '\\d{4}'
      if (part.startsWith('{')) return `(?:${part.slice(1, -1).split(',').map(literal).join('|')})`
      return literal(part)
    })
    .join('')
  return new RegExp(`^${source}$`)
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
