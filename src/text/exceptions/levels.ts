import type { LogLevel } from './records.js'

// The level a log line was written at, from the words before its message. Only upper-case
// words count (levels are printed so; "Error" in a message is not a level), and WebLogic's
// `<Error>` form. java.util.logging prints its levels in the JVM's language (the JDK's
// sun.util.logging.resources.logging_*.properties, as `Level.getLocalizedName()` prints
// them on OpenJDK 17): those count too.

const words: Record<string, LogLevel> = {}
const add = (level: LogLevel, names: string) => {
  for (const name of names.split(' ')) words[name] = level
}
add('trace', 'TRACE FINEST FINER')
add('debug', 'DEBUG DBG FINE')
add('info', 'INFO NOTICE CONFIG')
add('warn', 'WARN WARNING')
add('error', 'ERROR ERR SEVERE FATAL CRITICAL CRIT ALERT EMERG')
// java.util.logging in de, fr, it, es, pt-BR, sv, ja, zh-CN, zh-TW, ko (FINE and finer only as debug/trace).
add('error', 'SCHWERWIEGEND GRAVE ALLVARLIG 重大 严重 嚴重 심각')
add('warn', 'WARNUNG AVERTISSEMENT AVVERTENZA ADVERTENCIA ADVERTÊNCIA VARNING 警告 경고')
add('info', 'INFORMATION INFOS INFORMAZIONI INFORMACIÓN INFORMAÇÕES KONFIGURATION CONFIGURAZIONE CONFIGURAR')
add('info', 'CONFIGURAÇÃO KONFIG 情報 信息 資訊 정보 構成 配置 組態 구성')
add('debug', 'FEIN PRÉCIS BUONO DETALLADO DETALHADO FIN 普通 详细 詳細 미세')
add('trace', 'FEINER FEINSTEN MIGLIORE OTTIMALE FINARE FINASTE 较详细 非常详细 較詳細 最詳細 最も詳細')

/** JSON and structured layouts name the level in a field, in any case. */
const fieldLevels: Record<string, LogLevel> = {
  trace: 'trace',
  finest: 'trace',
  finer: 'trace',
  debug: 'debug',
  fine: 'debug',
  info: 'info',
  information: 'info',
  notice: 'info',
  config: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  err: 'error',
  severe: 'error',
  fatal: 'error',
  critical: 'error',
}

/** Words of the line's start: its prefix holds the level. */
const prefixChars = 200
export const word = /[\p{L}]+/gu

/**
 * A record head that opens the line with a bracket and its level, in any case: Log4j2's
 * `%level{lowerCase=true}` in Apache Geode's and GemFire's default pattern
 * (`[fine 2017/05/24 14:52:07.080 PDT <poolTimer-…> tid=0x6c] …`), or `[info]`, `[error]`.
 */
export const bracketHead = /^\s*\[(\p{L}+)[\s\]]/u

/** The first level word of a line's prefix, or null. */
export function levelOf(prefix: string): LogLevel | null {
  const head = prefix.length > prefixChars ? prefix.slice(0, prefixChars) : prefix
  const opening = bracketHead.exec(head)?.[1]
  const bracketed = opening ? fieldLevels[opening.toLowerCase()] : undefined
  if (bracketed) return bracketed
  for (const match of head.matchAll(word)) {
    const text = match[0]
    const level = words[text]
    if (level && (text === text.toUpperCase() || !/[a-z]/i.test(text))) return level
    // WebLogic: `<Error>`, `<Warning>`, `<Debug>`.
    const at = match.index
    if (head[at - 1] === '<' && head[at + text.length] === '>') {
      const named = fieldLevels[text.toLowerCase()]
      if (named) return named
    }
  }
  return null
}

/** A structured layout's level field: a name (`"debug"`), or a syslog severity number (GELF). */
export function levelOfField(value: unknown): LogLevel | null {
  if (typeof value === 'string') return fieldLevels[value.toLowerCase()] ?? null
  if (typeof value !== 'number') return null
  return value >= 7 ? 'debug' : value >= 5 ? 'info' : value === 4 ? 'warn' : 'error'
}
