import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import wabt from 'wabt'
import { packageRoot } from '../../src/paths.js'
import { dfaScanBytes, instantiateDfaScan } from '../../src/text/dfa-scan-wasm.js'

describe('the WebAssembly scan loop', () => {
  it('is what src/text/dfa-scan.wat assembles to', async () => {
    const text = readFileSync(join(packageRoot, 'src', 'text', 'dfa-scan.wat'), 'utf8')
    const module = (await wabt()).parseWat('dfa-scan.wat', text)
    try {
      expect(Buffer.from(module.toBinary({}).buffer).toString('hex')).toBe(Buffer.from(dfaScanBytes).toString('hex'))
    } finally {
      module.destroy()
    }
  })

  it('walks two chains apart and reports each hit with its address and row', () => {
    // One state besides the root, reached on byte "x" (class 1) from anywhere: a word "x".
    const { memory, scan } = instantiateDfaScan()
    const memory32 = new Int32Array(memory.buffer)
    memory32['x'.charCodeAt(0)] = 4 // classes at 0: byte "x" has the column of class 1 (4 bytes in)
    const table = 1024
    const rowBytes = 8 // two classes
    // root: class 0 -> root, class 1 -> state 1 (reports); state 1: the same.
    memory32.set([0, (rowBytes | 0x80000000) >> 0, 0, (rowBytes | 0x80000000) >> 0], table / 4)
    const input = 2048
    new Uint8Array(memory.buffer).set(Buffer.from('ax\nxx'), input)
    const [a, b] = scan(table, 0, input, input + 3, 4096, input + 3, input + 5, 8192)
    expect([a, b]).toEqual([1, 2])
    expect(Array.from(new Int32Array(memory.buffer, 4096, 2))).toEqual([input + 1, rowBytes])
    expect(Array.from(new Int32Array(memory.buffer, 8192, 4))).toEqual([input + 3, rowBytes, input + 4, rowBytes])
  })
})
