import { createAjv } from '../ajv.js'
import { rulepackSchema } from '../rules/rule-input.js'
import { schemaErrorsInWords } from '../schema-words.js'

// The rulepack schema the API validates with (schemas/rulepack-v1.schema.json), checked
// here first so that a rule the service would refuse is explained in words and not sent.
const validate = createAjv({ verbose: true }).compile(rulepackSchema)

/** What is wrong with a rule object, one sentence per field; empty when the schema accepts it. */
export function ruleSchemaProblems(body: unknown): string[] {
  return validate(body) ? [] : schemaErrorsInWords(validate.errors, 'rule')
}
