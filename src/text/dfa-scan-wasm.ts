// The inner loop of AhoCorasick.scan as WebAssembly: about three times faster than the
// same loop in JavaScript on this project's machines (a log excerpt is 512 KiB, scanned
// once per event). Assembled by hand from this text; test/unit/pattern-index.test.ts
// checks it against the JavaScript loop.
//
// (module
//   (memory (export "memory") 1)
//   ;; table: u32 per (state, byte) at table + (state << 8 | byte) * 4, holding the next
//   ;; state, with bit 31 set when that state reports words. Writes (i, state) as two i32
//   ;; at out for every byte i after which a reporting state is reached; returns how many.
//   (func (export "scan") (param $table i32) (param $in i32) (param $len i32) (param $out i32)
//                         (result i32) (local $i i32) (local $s i32) (local $e i32) (local $n i32)
//     (block $done (loop $next
//       (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
//       (local.set $e (i32.load (i32.add (local.get $table) (i32.shl (i32.or
//         (i32.shl (local.get $s) (i32.const 8))
//         (i32.load8_u (i32.add (local.get $in) (local.get $i)))) (i32.const 2)))))
//       (local.set $s (i32.and (local.get $e) (i32.const 0x7fffffff)))
//       (if (i32.lt_s (local.get $e) (i32.const 0)) (then
//         (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3))) (local.get $i))
//         (i32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 3))) (local.get $s))
//         (local.set $n (i32.add (local.get $n) (i32.const 1)))))
//       (local.set $i (i32.add (local.get $i) (i32.const 1)))
//       (br $next)))
//     (local.get $n)))
const bytes = [
  // header, then the type (i32 i32 i32 i32) -> i32, one function, one page of memory
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x09, 0x01, 0x60, 0x04, 0x7f, 0x7f, 0x7f, 0x7f, 0x01, 0x7f,
  0x03, 0x02, 0x01, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01,
  // exports "memory" and "scan"
  0x07, 0x11, 0x02, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x04, 0x73, 0x63, 0x61, 0x6e, 0x00, 0x00,
  // code: one body of 105 bytes, four i32 locals
  0x0a, 0x6b, 0x01, 0x69, 0x01, 0x04, 0x7f,
  // block, loop, br_if (i >= len)
  0x02, 0x40, 0x03, 0x40, 0x20, 0x04, 0x20, 0x02, 0x4f, 0x0d, 0x01,
  // e = table[(s << 8 | in[i])]
  0x20, 0x00, 0x20, 0x05, 0x41, 0x08, 0x74, 0x20, 0x01, 0x20, 0x04, 0x6a, 0x2d, 0x00, 0x00, 0x72, 0x41, 0x02, 0x74,
  0x6a, 0x28, 0x02, 0x00, 0x21, 0x06,
  // s = e & 0x7fffffff
  0x20, 0x06, 0x41, 0xff, 0xff, 0xff, 0xff, 0x07, 0x71, 0x21, 0x05,
  // if (e < 0) { out[n] = (i, s); n++ }
  0x20, 0x06, 0x41, 0x00, 0x48, 0x04, 0x40, 0x20, 0x03, 0x20, 0x07, 0x41, 0x03, 0x74, 0x6a, 0x20, 0x04, 0x36, 0x02,
  0x00, 0x20, 0x03, 0x20, 0x07, 0x41, 0x03, 0x74, 0x6a, 0x20, 0x05, 0x36, 0x02, 0x04, 0x20, 0x07, 0x41, 0x01, 0x6a,
  0x21, 0x07, 0x0b,
  // i++, continue; end loop and block; return n
  0x20, 0x04, 0x41, 0x01, 0x6a, 0x21, 0x04, 0x0c, 0x00, 0x0b, 0x0b, 0x20, 0x07, 0x0b,
]

// Node's WebAssembly global, typed here: TypeScript declares it only with the DOM library.
interface WebAssemblyApi {
  Module: new (code: Uint8Array) => object
  Instance: new (module: object, imports: object) => { exports: unknown }
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly
const dfaScanModule = new Module(Uint8Array.from(bytes))

export interface DfaScanExports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number }
  scan(table: number, input: number, length: number, out: number): number
}

/** A new instance, with its own memory (one page to start with). */
export const instantiateDfaScan = () => new Instance(dfaScanModule, {}).exports as DfaScanExports
