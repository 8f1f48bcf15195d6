// Lines of an excerpt as the exception reader walks them: over the excerpt's text, or over
// the lines of one JSON field.

export interface Line {
  /** The line as the reader reads it (a container runtime's JSON wrapper removed). */
  text: string
  /** 1-based line of the excerpt. */
  number: number
  /** Where the line starts: a character offset, or an index into the lines of a field. */
  start: number
}

export interface Lines {
  next(line: Line): Line | null
  previous(line: Line): Line | null
}

/** A line longer than this is read cut: no trace line is, and a message is cut anyway. */
const maxLineChars = 16 * 1024

/**
 * The lines of the excerpt's text. String searches rather than Buffer ones: a trace is
 * walked line by line, and `Buffer.indexOf` costs a native call each (3 ms for the lines
 * of a 512 KiB error storm, against a tenth of that here).
 */
export class TextLines implements Lines {
  /** `firstLine`: the excerpt's number of the text's first line, when the text is a part of it. */
  constructor(
    private readonly text: string,
    private readonly firstLine = 1,
  ) {}

  at(start: number, number: number): Line {
    const nl = this.text.indexOf('\n', start)
    const end = Math.min(nl === -1 ? this.text.length : nl, start + maxLineChars)
    return { text: logicalText(this.text.slice(start, end)), number, start }
  }

  next(line: Line): Line | null {
    const nl = this.text.indexOf('\n', line.start)
    return nl === -1 || nl + 1 >= this.text.length ? null : this.at(nl + 1, line.number + 1)
  }

  previous(line: Line): Line | null {
    if (line.start === 0) return null
    const start = line.start < 2 ? 0 : this.text.lastIndexOf('\n', line.start - 2) + 1
    return this.at(start, line.number - 1)
  }

  /**
   * The character offset and line number of lines given by their byte offsets (ascending)
   * in `bytes`, the text's UTF-8: the same offsets when the text is ASCII, otherwise each
   * gap decoded once. Newlines are counted with string searches, one pass in all.
   */
  locate(bytes: Buffer, byteStarts: readonly number[]): Array<{ start: number; number: number }> {
    const ascii = bytes.length === this.text.length
    const found: Array<{ start: number; number: number }> = []
    let number = this.firstLine
    let counted = 0 // characters before this offset have had their newlines counted
    let byte = 0
    let char = 0
    for (const byteStart of byteStarts) {
      char = ascii ? byteStart : char + bytes.toString('utf8', byte, byteStart).length
      byte = byteStart
      for (let nl = this.text.indexOf('\n', counted); nl !== -1 && nl < char; nl = this.text.indexOf('\n', nl + 1)) {
        number++
        counted = nl + 1
      }
      counted = Math.max(counted, char)
      found.push({ start: char, number })
    }
    return found
  }
}

/** The lines of one field (a JSON log record's stack trace), all at the record's line. */
export class FieldLines implements Lines {
  constructor(
    private readonly texts: readonly string[],
    private readonly number: number,
  ) {}

  all(): Line[] {
    return this.texts.map((text, start) => ({ text, number: this.number, start }))
  }

  next(line: Line): Line | null {
    const text = this.texts[line.start + 1]
    return text === undefined ? null : { text, number: this.number, start: line.start + 1 }
  }

  previous(line: Line): Line | null {
    const text = this.texts[line.start - 1]
    return text === undefined ? null : { text, number: this.number, start: line.start - 1 }
  }
}

/**
 * Docker's json-file driver writes each line of a container's output as
 * `{"log":"…\n","stream":"stderr","time":"…"}`: the reader reads the line inside.
 */
export function logicalText(raw: string): string {
  if (!raw.startsWith('{"log":"')) return raw
  try {
    const value = (JSON.parse(raw) as { log?: unknown }).log
    return typeof value === 'string' ? value.replace(/\r?\n$/, '') : raw
  } catch {
    return raw
  }
}
