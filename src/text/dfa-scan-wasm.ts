import { dfaScanBytes } from './dfa-scan-bytes.js'

// The inner loop of AhoCorasick.scan as WebAssembly: src/text/dfa-scan.wat, assembled by
// `npm run build` (src/text/assemble-dfa-scan.mjs writes dfa-scan-bytes.ts; a test checks
// that the committed bytes are what the text assembles to, and pattern-index.test.ts checks
// the scan against the JavaScript loop). A
// log excerpt is 512 KiB, scanned once per event: this loop, walking two halves of it at
// once, is about twice as fast as one walk, and one walk in WebAssembly is about three
// times as fast as the same loop in JavaScript.

export { dfaScanBytes }

// Node's WebAssembly global, typed here: TypeScript declares it only with the DOM library.
interface WebAssemblyApi {
  Module: new (code: Uint8Array) => object
  Instance: new (module: object, imports: object) => { exports: unknown }
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly
const dfaScanModule = new Module(dfaScanBytes)

export interface DfaScanExports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number }
  /** Walks [a, aEnd) and [b, bEnd); returns how many hits each wrote at outA and outB. */
  scan(
    table: number,
    classes: number,
    a: number,
    aEnd: number,
    outA: number,
    b: number,
    bEnd: number,
    outB: number,
  ): [number, number]
}

/** A new instance, with its own memory (one page to start with). */
export const instantiateDfaScan = () => new Instance(dfaScanModule, {}).exports as DfaScanExports
