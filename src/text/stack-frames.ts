// A stack frame names the code that was running, not what went wrong: a thread that is
// constructing a ClassNotFoundException, or a frame of `UnknownHostException.<init>`, is
// no evidence of either. The scanner asks here before it counts a match
// (docs/design.md, "Frames are not causes").

/** `at pkg.Class.method(File.java:12)`, after any prefix (journal, container, JSON), with logback's `~[jar:1.0]`. */
const atFrame = /(?:^|\s)at\s+[\w$/<>@-]+(?:\.[\w$/<>@-]+)+\s?\([^()]*\)(?:\s*~?\[[^\]]*\])?\s*$/
/**
 * `... 12 more`, `... 5 common frames omitted`, and the line that stands for folded frames
 * (frame-folding.ts): `... 1,020 identical frames folded`, `... 1,020 frames folded (3-frame
 * cycle above, 340 more times)`.
 */
const elidedFrames =
  /(?:^|\s)\.\.\. (?:\d+ (?:more|common frames omitted)|[\d,]+ (?:identical frames folded|frames folded \(\d+-frame cycle above, [\d,]+ more times\)))\s*$/
/** WebLogic and JRockit print frames without `at`: `\tjava.lang.Thread.run(Thread.java:748)`. */
const bareFrame =
  /^\s+[\w$/<>@-]+(?:\.[\w$/<>@-]+)+\((?:[\w$-]+\.(?:java|kt|scala|groovy)(?::[\d?]+)?|Native Method|Unknown Source)\)\s*$/

/** A segment longer than this is a message, not a frame (frames are short). */
const maxFrameChars = 2000

/** One line of a trace: JSON loggers put the whole trace in one line, joined by `\n` escapes. */
export function isFrameSegment(segment: string): boolean {
  if (segment.length > maxFrameChars) return false
  const line = segment
    .replace(/\\t/g, '\t')
    .replace(/^\s*"/, ' ')
    .replace(/"[}\],\s]*$/, '')
  return atFrame.test(line) || elidedFrames.test(line) || bareFrame.test(line)
}

const newline = 0x0a
const backslash = 0x5c
const letterN = 0x6e

/** Whether the match at byte `offset` lies in a stack frame. */
export function isFrameAt(bytes: Buffer, offset: number): boolean {
  let start = offset
  const floor = Math.max(0, offset - maxFrameChars)
  while (
    start > floor &&
    bytes[start - 1] !== newline &&
    !(bytes[start - 2] === backslash && bytes[start - 1] === letterN)
  )
    start--
  let end = offset
  const ceiling = Math.min(bytes.length, offset + maxFrameChars)
  while (end < ceiling && bytes[end] !== newline && !(bytes[end] === backslash && bytes[end + 1] === letterN)) end++
  return isFrameSegment(bytes.toString('utf8', start, end))
}

/** The same for a character index of decoded text (where a regular expression matched). */
export function isFrameAtText(text: string, index: number): boolean {
  const start = Math.max(text.lastIndexOf('\n', index - 1) + 1, text.lastIndexOf('\\n', index - 1) + 2, 0)
  const ends = [text.indexOf('\n', index), text.indexOf('\\n', index)].filter((i) => i !== -1)
  const end = ends.length > 0 ? Math.min(...ends) : text.length
  return isFrameSegment(text.slice(start, end))
}
