import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020, type Options } from 'ajv/dist/2020.js'
import ajvFormatsModule, { type FormatsPlugin } from 'ajv-formats'
import { dateTimeFormat } from './instant.js'
import { schemasDir } from './paths.js'

// ajv-formats is CommonJS: under NodeNext its callable lives on `default`.
const addFormats = (ajvFormatsModule as unknown as { default: FormatsPlugin }).default

// strictRequired would forbid the `oneOf: [{required: [a]}, {required: [b]}]` idiom.
/** Every schema of ours is JSON Schema draft 2020-12 (D10, D19), validated by one ajv flavour. */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, ...options })
  addFormats(ajv)
  // Every instant a schema accepts is read by the one parser, so the two cannot disagree.
  ajv.addFormat('date-time', dateTimeFormat)
  return ajv
}

/** How request bodies are validated: as sent, never coerced or trimmed (D7). */
export const requestValidation: Options = { coerceTypes: false, removeAdditional: false }

export function loadSchema(fileName: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(schemasDir, fileName), 'utf8')) as Record<string, unknown>
}
