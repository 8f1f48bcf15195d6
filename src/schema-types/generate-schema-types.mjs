// Generates the TypeScript types of schemas/*.schema.json into src/schema-types/ with
// json-schema-to-typescript, so that each shape has one source: its JSON schema. `npm run
// build` runs it first; the output is committed, and test/unit/schema-types.test.ts fails
// when it no longer matches the schemas.
import { readFileSync, writeFileSync } from 'node:fs'
import { compileFromFile } from 'json-schema-to-typescript'

const root = new URL('../../', import.meta.url)

/** Each schema, the file its types go to, and the name of its top-level type. */
export const generated = [
  { schema: 'alertmanager-webhook-v4.schema.json', file: 'webhook-payload.ts', name: 'WebhookPayload' },
  { schema: 'rulepack-v1.schema.json', file: 'custom-rule-input.ts', name: 'CustomRuleInput' },
  { schema: 'builtin-rules.schema.json', file: 'builtin-rule-file.ts', name: 'BuiltinRuleFile' },
  { schema: 'inventory.schema.json', file: 'inventory-file.ts', name: 'InventoryFile' },
  { schema: 'api-tokens.schema.json', file: 'api-token-file.ts', name: 'ApiTokenFile' },
  { schema: 'event-record-v1.schema.json', file: 'spool-record.ts', name: 'SpoolRecord' },
  { schema: 'exception-taxonomy.schema.json', file: 'exception-taxonomy-file.ts', name: 'ExceptionTaxonomyFile' },
]

/** The text of each generated file, by file name. */
export async function schemaTypes() {
  const out = new Map()
  for (const { schema, file, name } of generated) {
    const path = new URL(`schemas/${schema}`, root)
    const text = await compileFromFile(path.pathname, {
      bannerComment: `// Generated from schemas/${schema} by src/schema-types/generate-schema-types.mjs (npm run build): do not edit.`,
      // The top-level schema gets a short name; definitions keep their own ($defs key).
      customName: (s) => (s.$id === schema ? name : undefined),
      cwd: new URL('schemas/', root).pathname,
      // Bounded arrays stay arrays: a 10-tuple union helps nobody.
      ignoreMinAndMaxItems: true,
      unknownAny: true,
      style: { printWidth: 120, singleQuote: true, semi: false, trailingComma: 'all' },
    })
    out.set(file, text)
  }
  return out
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [file, text] of await schemaTypes()) {
    const target = new URL(file, import.meta.url)
    let current = ''
    try {
      current = readFileSync(target, 'utf8')
    } catch {}
    if (current !== text) writeFileSync(target, text)
  }
}
