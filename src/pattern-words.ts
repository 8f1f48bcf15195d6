// ajv's message for a failed `pattern` is its regular expression ("must match pattern
// "^[A-Z]+-\d{2}$""), which tells a person little. Every `pattern` a schema of ours holds
// (schemas/*.json, the queries of the API's routes and of the console, the CLI's config
// file) has its words here;
// test/unit/schema-words.test.ts and test/http/openapi.test.ts fail when one has none.
// The configuration's patterns are said by their own `description` (src/config/schema.ts).

const oneLine = 'must be one line of text: no line breaks and no NUL characters'
const javaClass = 'must be a fully qualified Java class name, like java.sql.SQLTransientConnectionException'
const taxonomyMeaning = 'must be a meaning of the exception taxonomy in lower case with hyphens, like heap-exhausted'
const version = 'must be a version of three numbers, like 1.0.0'

/** What each `pattern` asks, in words: a sentence that follows a field's name. */
export const patternWords: Readonly<Record<string, string>> = {
  // schemas/rulepack-v1.schema.json
  '^[A-Z]+-\\d{2}$': 'must be capital letters, a hyphen and two digits, like OPS-31',
  '^[A-Za-z][A-Za-z0-9]{2,79}$': 'must be 3 to 80 letters and digits that start with a letter, like LedgerLockTimeout',
  '^[^\\r\\n\\u0000]+$': oneLine,
  '^(?:[Cc][Oo][Nn][Ff][Ii][Rr][Mm][Ee][Dd]_[Cc][Aa][Uu][Ss][Ee]|[Pp][Rr][Oo][Bb][Aa][Bb][Ll][Ee]_[Cc][Aa][Uu][Ss][Ee])$':
    'must be confirmed_cause or probable_cause (in any case)',
  '^(?:[Hh][Ii][Gg][Hh]|[Mm][Ee][Dd][Ii][Uu][Mm])$': 'must be high or medium (in any case)',
  '^[Hh][Ii][Gg][Hh]$': 'must be high: a confirmed_cause pairs with high confidence',
  '^[Mm][Ee][Dd][Ii][Uu][Mm]$': 'must be medium: a probable_cause pairs with medium confidence',
  '^[a-z][A-Za-z0-9_]*(?:\\.[A-Za-z0-9_$]+)+$': javaClass,
  '^[a-z][a-z-]{2,40}$': taxonomyMeaning,
  // schemas/alertmanager-webhook-v4.schema.json
  '^[a-zA-Z_][a-zA-Z0-9_]*$':
    'must be letters, digits and underscores that do not start with a digit, like appserver_instance',
  '^[0-9A-Za-z]{1,128}$': 'must be 1 to 128 letters and digits',
  // schemas/builtin-rules.schema.json
  '^\\d+\\.\\d+\\.\\d+$': version,
  '^(TD|AH|GC|TH)-\\d{2}$': 'must be TD, AH, GC or TH, a hyphen and two digits, like TD-01',
  '^[A-Z][A-Za-z0-9]{2,79}$':
    'must be 3 to 80 letters and digits that start with a capital letter, like JavaHeapExhausted',
  '^\\$\\.[A-Za-z]+$': 'must be $. and the name of a fact in letters, like $.heapUsedRatio',
  // schemas/api-tokens.schema.json (and DIAG_API_TOKEN)
  '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$':
    'must be 1 to 64 letters, digits, dots, underscores, @ and hyphens that start with a letter or a digit',
  '^[\\x21-\\x7e]{16,512}$': 'must be 16 to 512 visible ASCII characters, without spaces',
  '^[0-9a-fA-F]{64}$': 'must be 64 hexadecimal digits (a SHA-256)',
  // schemas/inventory.schema.json
  '^https?://': 'must be an http:// or https:// URL',
  // schemas/exception-taxonomy.schema.json
  '^[A-Z]{2}-\\d{2}$': 'must be two capital letters, a hyphen and two digits, like TD-01',
  '^[0-9A-Z]{2}(?:[0-9A-Z]{3})?$':
    'must be a SQLSTATE: a class of 2 or a code of 5 capital letters and digits, like 08 or 08S01',
  '^(?:ORA-\\d{5}|-?\\d{1,6})$':
    'must be ORA- and five digits, or a number of up to six digits, like ORA-00060 or -911',
  '^E[A-Z_]{2,15}$': 'must be an errno name: E and 2 to 15 capital letters or underscores, like ECONNREFUSED',
  '^https://': 'must be an https:// URL',
  '^[a-z][\\w]*(?:\\.[\\w$]+)+$': javaClass,
  '^[a-z][\\w]*(?:\\.[\\w$]+)*\\.?$':
    'must be a Java package or class name, or the start of one that ends with a dot, like java.net.',
  // The routes' query strings (src/http/routes/): numbers as text, since a query is not coerced.
  '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$': 'must be a whole number from 1 to 200',
  '^(?:[1-9][0-9]{0,2}|[1-4][0-9]{3}|5000)$': 'must be a whole number from 1 to 5000',
  // The web console's queries (src/console/): its forms send a field left empty as ''.
  '^$|^[A-Z]+-\\d{2}$': 'must be empty, or capital letters, a hyphen and two digits, like OPS-31',
  '^$|^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$': 'must be empty, or a whole number from 1 to 200',
  '^$|^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?Z?$':
    'must be empty, or a date and time in UTC, like 2026-11-22T05:00 or 2026-11-22T05:00:00Z',
  '^\\d{1,9}$': 'must be a whole number of at most 9 digits',
}
