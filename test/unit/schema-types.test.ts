import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { generated, schemaTypes } from '../../src/schema-types/generate-schema-types.mjs'

describe('types generated from schemas/', () => {
  it('are what the schemas generate today (run npm run build after changing a schema)', async () => {
    const texts = await schemaTypes()
    expect([...texts.keys()].sort()).toEqual(generated.map((g) => g.file).sort())
    for (const [file, text] of texts) {
      expect(readFileSync(join(packageRoot, 'src', 'schema-types', file), 'utf8'), file).toBe(text)
    }
  })
})
