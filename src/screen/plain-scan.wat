;; The plainness scan of collapse.ts over UTF-8 bytes, sixteen bytes a step.
;; Plain: printable characters, tabs, CR LF pairs, SGR and EL sequences
;; (ESC [ digits and ; then m or K). Not plain: any other C0 control, DEL,
;; a C1 control (the UTF-8 pair C2 80-9F), a bare CR.
;;
;; scan(n) reads memory [0, n) and returns
;;   n     when all of it is plain,
;;   -1    when something in it is not,
;;   p < n when it is plain up to a sequence at p that may go on past n
;;         (the caller hands over the bytes from p again with what follows).
;;
;; Build: npm run build:wasm (writes src/screen/plain-scan-wasm.ts).
(module
  (memory (export "memory") 1)

  ;; Past the special byte at $p, or -1 (not plain), or -2 (it may go on past $n).
  (func $past (param $p i32) (param $n i32) (result i32)
    (local $c i32) (local $d i32) (local $j i32)
    (local.set $c (i32.load8_u (local.get $p)))
    (if (i32.eq (local.get $c) (i32.const 0x09))
      (then (return (i32.add (local.get $p) (i32.const 1)))))
    (if (i32.eq (local.get $c) (i32.const 0xc2))
      (then
        (if (i32.ge_u (i32.add (local.get $p) (i32.const 1)) (local.get $n))
          (then (return (i32.const -2))))
        (local.set $d (i32.load8_u offset=1 (local.get $p)))
        (if (i32.lt_u (i32.sub (local.get $d) (i32.const 0x80)) (i32.const 0x20))
          (then (return (i32.const -1))))
        (return (i32.add (local.get $p) (i32.const 1)))))
    (if (i32.eq (local.get $c) (i32.const 0x0d))
      (then
        (if (i32.ge_u (i32.add (local.get $p) (i32.const 1)) (local.get $n))
          (then (return (i32.const -2))))
        (if (i32.eq (i32.load8_u offset=1 (local.get $p)) (i32.const 0x0a))
          (then (return (i32.add (local.get $p) (i32.const 2)))))
        (return (i32.const -1))))
    (if (i32.ne (local.get $c) (i32.const 0x1b))
      (then (return (i32.const -1))))
    (if (i32.ge_u (i32.add (local.get $p) (i32.const 1)) (local.get $n))
      (then (return (i32.const -2))))
    (if (i32.ne (i32.load8_u offset=1 (local.get $p)) (i32.const 0x5b))
      (then (return (i32.const -1))))
    (local.set $j (i32.add (local.get $p) (i32.const 2)))
    (loop $params
      (if (i32.ge_u (local.get $j) (local.get $n))
        (then (return (i32.const -2))))
      (local.set $d (i32.load8_u (local.get $j)))
      (if (i32.or (i32.eq (local.get $d) (i32.const 0x6d)) (i32.eq (local.get $d) (i32.const 0x4b)))
        (then (return (i32.add (local.get $j) (i32.const 1)))))
      (if (i32.or (i32.lt_u (i32.sub (local.get $d) (i32.const 0x30)) (i32.const 10)) (i32.eq (local.get $d) (i32.const 0x3b)))
        (then
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $params))))
    (i32.const -1))

  ;; Bit k set where byte k of the sixteen at $i may not be plain by itself:
  ;; under 0x20, DEL, or C2 (the lead byte of a C1 control, or of a printable
  ;; character: $past tells). Bytes from 0x80 otherwise belong to printable characters.
  (func $specials (param $i i32) (result i32)
    (local $v v128)
    (local.set $v (v128.load (local.get $i)))
    (i8x16.bitmask
      (v128.or
        (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20))
        (v128.or
          (i8x16.eq (local.get $v) (v128.const i8x16 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f))
          (i8x16.eq (local.get $v) (v128.const i8x16 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2 0xc2))))))

  (func (export "scan") (param $n i32) (result i32)
    (local $i i32) (local $m i32) (local $p i32) (local $q i32) (local $c i32)
    (block $tail
      (loop $block
        (br_if $tail (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $n)))
        (local.set $m (call $specials (local.get $i)))
        (loop $each
          (if (local.get $m)
            (then
              (local.set $p (i32.add (local.get $i) (i32.ctz (local.get $m))))
              (local.set $q (call $past (local.get $p) (local.get $n)))
              (if (i32.eq (local.get $q) (i32.const -2)) (then (return (local.get $p))))
              (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
              ;; A sequence that ends past these sixteen: go on from its end.
              (if (i32.gt_u (i32.sub (local.get $q) (local.get $i)) (i32.const 16))
                (then
                  (local.set $i (local.get $q))
                  (br $block)))
              ;; Drop the bits below where it ends: the bytes it took.
              (local.set $m
                (i32.and (local.get $m)
                  (i32.xor (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $q) (local.get $i))) (i32.const 1)) (i32.const -1))))
              (br $each))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $block)))
    (loop $bytes
      (if (i32.lt_u (local.get $i) (local.get $n))
        (then
          (local.set $c (i32.load8_u (local.get $i)))
          (if (i32.and (i32.ge_u (local.get $c) (i32.const 0x20))
                (i32.and (i32.ne (local.get $c) (i32.const 0x7f)) (i32.ne (local.get $c) (i32.const 0xc2))))
            (then
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              (br $bytes)))
          (local.set $q (call $past (local.get $i) (local.get $n)))
          (if (i32.eq (local.get $q) (i32.const -2)) (then (return (local.get $i))))
          (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
          (local.set $i (local.get $q))
          (br $bytes))))
    (local.get $n)))
