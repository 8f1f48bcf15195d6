import { type DfaScanExports, instantiateDfaScan } from './dfa-scan-wasm.js'

/**
 * Above this size the WebAssembly loop's table (one i32 per state and byte class) is not
 * built, and the JavaScript loop over a 128-column table scans instead.
 */
const maxWasmTableBytes = 64 * 1024 * 1024
const page = 65_536
/** The byte-class map at the start of the WebAssembly memory: 256 i32. */
const classesBytes = 1024

/**
 * Aho-Corasick over UTF-8 bytes, folding ASCII letters to lower case. Finds every
 * occurrence of every word in one pass over the bytes, whatever the number of words.
 * Bytes rather than UTF-16 code units: a typed-array read per byte is about twice as fast
 * as `charCodeAt`, and logs arrive as bytes. UTF-8 is self-synchronizing, so a word's
 * bytes occur exactly where the word occurs in the decoded text.
 */
export class AhoCorasick {
  private readonly next: Array<Map<number, number>> = [new Map()]
  private readonly root = new Int32Array(256)
  private fail = new Int32Array(1)
  private readonly outputs: number[][] = [[]]
  /** Each word's length in bytes. */
  readonly lengths: number[] = []
  /** Full transitions for ASCII (state * 128 + byte), case folded in: one array read per byte. */
  private ascii: Uint16Array | Uint32Array = new Uint16Array(0)
  /** 1 where a state reports words, so the scan loop reads no array for the others. */
  private reports = new Uint8Array(0)

  /**
   * The WebAssembly loop and its memory: the byte classes, the table, then input and hits.
   * `splitAtNewline`: no word holds a newline, so every newline leads back to the root and
   * the two halves of a text split after one can be walked apart, each from the root.
   */
  private wasm: { exports: DfaScanExports; end: number; rowBytes: number; splitAtNewline: boolean } | undefined

  /**
   * `words[i]` is reported as id i; words are folded like the text. `wasmUpTo`: the most
   * states for which the WebAssembly loop is used (tests compare both loops).
   */
  constructor(words: readonly string[], wasmUpTo = Number.POSITIVE_INFINITY) {
    words.forEach((word, id) => {
      const bytes = Buffer.from(word, 'utf8')
      let state = 0
      for (const byte of bytes) {
        const c = fold(byte)
        let target = this.next[state]?.get(c)
        if (target === undefined) {
          target = this.next.length
          this.next.push(new Map())
          this.outputs.push([])
          this.next[state]?.set(c, target)
        }
        state = target
      }
      this.outputs[state]?.push(id)
      this.lengths[id] = bytes.length
    })
    this.link()
    if (!(this.next.length <= wasmUpTo && this.compileWasm())) this.compileAscii()
  }

  /**
   * The transition table of the WebAssembly loop, over byte classes: the bytes (folded)
   * that occur in some word have a class each, all others share class 0. About 50 classes
   * for the built-in rules instead of 256 columns: a table a fifth the size, which stays in
   * the processor's caches. False when the table would be too large.
   */
  private compileWasm(): boolean {
    const used = new Set<number>()
    for (const row of this.next) for (const c of row.keys()) used.add(c)
    const representative = [-1, ...[...used].sort((x, y) => x - y)]
    const classOfFolded = new Map(representative.map((c, k) => [c, k]))
    const classOf = Int32Array.from({ length: 256 }, (_, c) => classOfFolded.get(fold(c)) ?? 0)
    const columns = representative.length
    const rowBytes = columns * 4
    const tableBytes = this.next.length * rowBytes
    if (tableBytes > maxWasmTableBytes) return false
    const exports = instantiateDfaScan()
    exports.memory.grow(Math.ceil((classesBytes + tableBytes) / page))
    new Int32Array(exports.memory.buffer, 0, 256).set(classOf.map((k) => k * 4))
    // Class 0 (the bytes in no word) leads back to the root from every state: its column
    // stands for byte -1, which no word holds.
    const reports = (state: number) => ((this.outputs[state]?.length ?? 0) > 0 ? 0x80000000 : 0)
    this.fillTable(
      new Uint32Array(exports.memory.buffer, classesBytes, this.next.length * columns),
      columns,
      (to) => ((to * rowBytes) | reports(to)) >>> 0,
      (k) => representative[k] as number,
    )
    this.wasm = { exports, end: classesBytes + tableBytes, rowBytes, splitAtNewline: !used.has(10) }
    return true
  }

  /** The goto-plus-failure transition, resolved once per (state, ASCII byte). */
  private compileAscii(): void {
    const states = this.next.length
    this.ascii = states <= 0xffff ? new Uint16Array(states * 128) : new Uint32Array(states * 128)
    this.fillTable(this.ascii, 128, (to) => to)
    this.reports = Uint8Array.from(this.outputs, (out) => (out.length > 0 ? 1 : 0))
  }

  /**
   * Fills `table` with `columns` entries per state: `entry(target)` for the state each
   * (state, byte of column) leads to, following failure links; 0 (the root) where none
   * leads. `byteOf(column)` is the byte a column stands for, -1 for none.
   */
  private fillTable(
    table: Uint16Array | Uint32Array,
    columns: number,
    entry: (target: number) => number,
    byteOf: (column: number) => number = (c) => c,
  ): void {
    // Breadth-first order: a state's failure target is shallower, so its row is ready.
    const order: number[] = [0]
    for (let head = 0; head < order.length; head++) order.push(...(this.next[order[head] as number]?.values() ?? []))
    for (const state of order) {
      const row = state * columns
      const failRow = (this.fail[state] as number) * columns
      for (let c = 0; c < columns; c++) {
        const folded = fold(byteOf(c))
        const target = folded < 0 ? undefined : state === 0 ? this.root[folded] : this.next[state]?.get(folded)
        table[row + c] = target !== undefined ? entry(target) : state === 0 ? 0 : (table[failRow + c] as number)
      }
    }
  }

  private link(): void {
    this.fail = new Int32Array(this.next.length)
    for (const [c, target] of this.next[0] ?? []) this.root[c] = target
    const queue: number[] = [...(this.next[0]?.values() ?? [])]
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head] as number
      for (const [c, target] of this.next[state] ?? []) {
        queue.push(target)
        let f = this.fail[state] as number
        while (f !== 0 && !this.next[f]?.has(c)) f = this.fail[f] as number
        const candidate = f === 0 ? (this.root[c] as number) : (this.next[f]?.get(c) as number)
        this.fail[target] = candidate === target ? 0 : candidate
        const inherited = this.outputs[this.fail[target] as number] ?? []
        if (inherited.length > 0) this.outputs[target]?.push(...inherited)
      }
    }
  }

  /**
   * Calls `found(id, start)` for each occurrence, `start` being a byte offset; `found`
   * returns true to stop the scan early (when everything it looks for has been seen).
   */
  scan(bytes: Uint8Array, found: (id: number, start: number) => boolean | undefined): void {
    if (this.wasm) {
      this.scanWasm(this.wasm, bytes, found)
      return
    }
    let state = 0
    const { ascii, reports } = this
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i] as number
      state = c < 128 ? (ascii[state * 128 + c] as number) : this.step(state, c)
      if (reports[state] === 0) continue
      const out = this.outputs[state] as number[]
      for (let k = 0; k < out.length; k++) {
        const id = out[k] as number
        if (found(id, i - (this.lengths[id] as number) + 1)) return
      }
    }
  }

  private scanWasm(
    wasm: NonNullable<AhoCorasick['wasm']>,
    bytes: Uint8Array,
    found: (id: number, start: number) => boolean | undefined,
  ): void {
    const { memory, scan } = wasm.exports
    const input = wasm.end
    const length = bytes.length
    // At most one hit per byte, 8 bytes each.
    const outA = input + Math.ceil(length / 8) * 8
    const needed = outA + length * 8
    if (memory.buffer.byteLength < needed) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / page))
    new Uint8Array(memory.buffer, input, length).set(bytes)
    // The second half starts after a newline (the root), so that the halves are walked apart.
    const newline = wasm.splitAtNewline ? bytes.indexOf(10, length >> 1) : -1
    const split = newline < 0 ? length : newline + 1
    const [hitsA, hitsB] = scan(
      classesBytes,
      0,
      input,
      input + split,
      outA,
      input + split,
      input + length,
      outA + split * 8,
    )
    for (const [out, hits] of [
      [outA, hitsA],
      [outA + split * 8, hitsB],
    ] as const) {
      const pairs = new Int32Array(memory.buffer, out, hits * 2)
      for (let k = 0; k < pairs.length; k += 2) {
        const end = (pairs[k] as number) - input
        const ids = this.outputs[(pairs[k + 1] as number) / wasm.rowBytes] as number[]
        for (const id of ids) if (found(id, end - (this.lengths[id] as number) + 1)) return
      }
    }
  }

  /** The transition for a byte of a multi-byte character: goto, else follow failure links. */
  private step(from: number, c: number): number {
    let state = from
    for (;;) {
      if (state === 0) return this.root[c] as number
      const target = this.next[state]?.get(c)
      if (target !== undefined) return target
      state = this.fail[state] as number
    }
  }
}

function fold(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c
}
