import { levelOfField } from './levels.js'
import type { LogLevel } from './records.js'

// JSON log lines: ECS (`error.type`, `error.message`, `error.stack_trace`, `log.level`),
// logstash-logback-encoder (`stack_trace`), GELF (`full_message`, `_error_stack_trace`,
// numeric `level`), Log4j2's JsonLayout (`thrown` with `name`, `message`, `cause`),
// JBoss/WildFly and Quarkus (`exception` with `exceptionType`, `causedBy`), OpenTelemetry
// (`exception.type`, `exception.stacktrace`). Field names from
// https://www.elastic.co/guide/en/ecs/current/ecs-error.html,
// https://github.com/logfellow/logstash-logback-encoder#standard-fields,
// https://go2docs.graylog.org/current/getting_in_log_data/gelf.html,
// https://logging.apache.org/log4j/2.x/manual/json-template-layout.html,
// https://opentelemetry.io/docs/specs/semconv/exceptions/exceptions-logs/.

export interface NamedThrowable {
  class: string
  message: string
}

export interface JsonRecord {
  level: LogLevel | null
  /** A stack trace as printed, held in one field: its lines. */
  trace: string[] | null
  /** A chain given field by field, outermost first. */
  chain: NamedThrowable[] | null
  /** The message, read as a plain line when no field names an exception. */
  message: string | null
}

const traceFields = [
  'error.stack_trace',
  'error.stack_trace_lines',
  'stack_trace',
  'stackTrace',
  'stacktrace',
  'exception.stacktrace',
  'exception.stack_trace',
  '_error_stack_trace',
  '_stack_trace',
  'full_message',
  'exception',
  'throwable',
]
const levelFields = ['level', 'log.level', 'severity', 'loglevel', 'levelname', '@l']
const messageFields = ['message', 'msg', 'short_message', '@m']
/** A chain deeper than this is cut. */
const maxChain = 8

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value)

/** A field by its dotted name, flattened (`"error.type"`) or nested (`{"error": {"type"}}`). */
function field(record: Json, name: string): unknown {
  if (name in record) return record[name]
  const dot = name.indexOf('.')
  if (dot === -1) return undefined
  const parent = record[name.slice(0, dot)]
  return isObject(parent) ? field(parent, name.slice(dot + 1)) : undefined
}

/** The first field that holds text: a string, or an array of lines (ecs-logging-java's `error.stack_trace` as an array). */
const firstString = (record: Json, names: readonly string[]) => {
  for (const name of names) {
    const value = field(record, name)
    if (typeof value === 'string' && value.length > 0) return value
    if (Array.isArray(value) && value.length > 0 && value.every((line) => typeof line === 'string'))
      return value.join('\n')
  }
  return null
}

/** The line's JSON record, when it is one (after a prefix of up to 64 characters, such as docker compose's). */
export function jsonRecord(text: string): JsonRecord | null {
  const open = text.indexOf('{')
  if (open === -1 || open > 64 || !text.trimEnd().endsWith('}')) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(text.slice(open))
  } catch {
    return null
  }
  if (!isObject(parsed)) return null
  const level = levelFields.map((name) => levelOfField(field(parsed, name))).find((l) => l !== null) ?? null
  const trace = firstString(parsed, traceFields)
  return {
    level,
    trace:
      trace?.includes('\n') || trace?.includes('Exception') || trace?.includes('Error') ? trace.split(/\r?\n/) : null,
    chain: chainOf(parsed),
    message: firstString(parsed, messageFields),
  }
}

/** Log4j2's `thrown`, JBoss's and Quarkus's `exception` object, ECS's or OpenTelemetry's type and message. */
function chainOf(record: Json): NamedThrowable[] | null {
  const chain: NamedThrowable[] = []
  let thrown: unknown = record.thrown ?? (isObject(record.exception) ? record.exception : undefined)
  while (isObject(thrown) && chain.length < maxChain) {
    const name = thrown.name ?? thrown.exceptionType ?? thrown.type
    if (typeof name !== 'string') break
    const message = thrown.message ?? thrown.localizedMessage ?? thrown['error.message']
    chain.push({ class: name, message: typeof message === 'string' ? message : '' })
    const cause = thrown.cause ?? thrown.causedBy
    thrown = isObject(cause) && isObject(cause.exception) ? cause.exception : cause
  }
  if (chain.length > 0) return chain
  for (const prefix of ['error', 'exception']) {
    const type = field(record, `${prefix}.type`)
    const message = field(record, `${prefix}.message`)
    if (typeof type === 'string') return [{ class: type, message: typeof message === 'string' ? message : '' }]
  }
  return null
}

/**
 * A trace whose newlines are escapes (`\n\tat …`) in a line that is not valid JSON (cut,
 * or a JSON-like layout): its lines, unescaped; null when the line holds none.
 */
export function escapedTrace(text: string): string[] | null {
  if (!text.includes('\\n') || !(text.includes('\\n\\tat ') || text.includes('\\nCaused by: '))) return null
  return text.split('\\n').map((line) => line.replace(/\\t/g, '\t').replace(/\\"/g, '"').replace(/\\\\/g, '\\'))
}
