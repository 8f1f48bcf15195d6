;; The inner loop of AhoCorasick.scan (src/text/aho-corasick.ts), two chains at once.
;;
;; Memory: `classes` holds 256 i32, the byte offset of each byte's column in a row of the
;; transition table. `table` holds one row per state, one i32 per byte class: the byte
;; offset (from `table`) of the next state's row, with bit 31 set when that state reports
;; words. The root's row is the first.
;;
;; Chain A walks the bytes at [a, aEnd), chain B those at [b, bEnd), both from the root,
;; one byte of each per turn of the loop: the two chains do not depend on each other, so
;; the processor overlaps their table loads, which is where one chain spends its time.
;; For every byte after which a chain reaches a reporting state it writes two i32, the
;; byte's address and the state's row offset, at outA or outB. Returns the two counts.
(module
  (memory (export "memory") 1)
  (func (export "scan")
    (param $table i32) (param $classes i32)
    (param $a i32) (param $aEnd i32) (param $outA i32)
    (param $b i32) (param $bEnd i32) (param $outB i32)
    (result i32 i32)
    (local $rowA i32) (local $rowB i32) (local $nA i32) (local $nB i32) (local $e i32) (local $more i32)
    (local.set $rowA (local.get $table))
    (local.set $rowB (local.get $table))
    (loop $next
      (local.set $more (i32.const 0))
      (if (i32.lt_u (local.get $a) (local.get $aEnd)) (then
        ;; e = row[classes[byte]]
        (local.set $e (i32.load (i32.add (local.get $rowA) (i32.load (i32.add (local.get $classes)
          (i32.shl (i32.load8_u (local.get $a)) (i32.const 2)))))))
        (local.set $rowA (i32.add (local.get $table) (i32.and (local.get $e) (i32.const 0x7fffffff))))
        (if (i32.lt_s (local.get $e) (i32.const 0)) (then
          (i32.store (local.get $outA) (local.get $a))
          (i32.store offset=4 (local.get $outA) (i32.sub (local.get $rowA) (local.get $table)))
          (local.set $outA (i32.add (local.get $outA) (i32.const 8)))
          (local.set $nA (i32.add (local.get $nA) (i32.const 1)))))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (local.set $more (i32.const 1))))
      (if (i32.lt_u (local.get $b) (local.get $bEnd)) (then
        (local.set $e (i32.load (i32.add (local.get $rowB) (i32.load (i32.add (local.get $classes)
          (i32.shl (i32.load8_u (local.get $b)) (i32.const 2)))))))
        (local.set $rowB (i32.add (local.get $table) (i32.and (local.get $e) (i32.const 0x7fffffff))))
        (if (i32.lt_s (local.get $e) (i32.const 0)) (then
          (i32.store (local.get $outB) (local.get $b))
          (i32.store offset=4 (local.get $outB) (i32.sub (local.get $rowB) (local.get $table)))
          (local.set $outB (i32.add (local.get $outB) (i32.const 8)))
          (local.set $nB (i32.add (local.get $nB) (i32.const 1)))))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (local.set $more (i32.const 1))))
      (br_if $next (local.get $more)))
    (local.get $nA)
    (local.get $nB)))
