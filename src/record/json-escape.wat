;; A terminal's UTF-8 bytes into the body of a JSON string, as json-bytes.ts
;; defines it: valid UTF-8 copied as is; `"`, `\` and C0 controls escaped as
;; JSON.stringify escapes them; each maximal invalid subpart one U+FFFD.
;; Sixteen bytes a step while none needs more than a copy.
;;
;; Memory: the escapes of the bytes that have one at 8 * byte (length, then
;; the text), the input at IN (up to 64 KiB), the output at OUT (up to six
;; bytes for one, and 16 of slack: a step stores sixteen before it knows).
;;
;; escape(n) escapes input [0, n) to OUT and returns the output's length;
;; `stopped` says where it stopped: n, or the start of a character the input
;; ends in the middle of (its bytes so far valid), for the caller to hold.
;;
;; Build: npm run build:wasm (writes src/record/json-escape-wasm.ts).
(module
  (memory (export "memory") 9)
  (global $stopped (export "stopped") (mut i32) (i32.const 0))
  (global $IN i32 (i32.const 65536))
  (global $OUT i32 (i32.const 131072))

  (data (i32.const 0) "\06\\u0000")
  (data (i32.const 8) "\06\\u0001")
  (data (i32.const 16) "\06\\u0002")
  (data (i32.const 24) "\06\\u0003")
  (data (i32.const 32) "\06\\u0004")
  (data (i32.const 40) "\06\\u0005")
  (data (i32.const 48) "\06\\u0006")
  (data (i32.const 56) "\06\\u0007")
  (data (i32.const 64) "\02\\b")
  (data (i32.const 72) "\02\\t")
  (data (i32.const 80) "\02\\n")
  (data (i32.const 88) "\06\\u000b")
  (data (i32.const 96) "\02\\f")
  (data (i32.const 104) "\02\\r")
  (data (i32.const 112) "\06\\u000e")
  (data (i32.const 120) "\06\\u000f")
  (data (i32.const 128) "\06\\u0010")
  (data (i32.const 136) "\06\\u0011")
  (data (i32.const 144) "\06\\u0012")
  (data (i32.const 152) "\06\\u0013")
  (data (i32.const 160) "\06\\u0014")
  (data (i32.const 168) "\06\\u0015")
  (data (i32.const 176) "\06\\u0016")
  (data (i32.const 184) "\06\\u0017")
  (data (i32.const 192) "\06\\u0018")
  (data (i32.const 200) "\06\\u0019")
  (data (i32.const 208) "\06\\u001a")
  (data (i32.const 216) "\06\\u001b")
  (data (i32.const 224) "\06\\u001c")
  (data (i32.const 232) "\06\\u001d")
  (data (i32.const 240) "\06\\u001e")
  (data (i32.const 248) "\06\\u001f")
  (data (i32.const 272) "\02\\\"")
  (data (i32.const 736) "\02\\\\")

  (func $fffd (param $o i32) (result i32)
    ;; EF BF BD, and a byte after it that the next write covers.
    (i32.store (local.get $o) (i32.const 0x00bdbfef))
    (i32.add (local.get $o) (i32.const 3)))

  (func (export "escape") (param $n i32) (result i32)
    (local $i i32) (local $o i32) (local $v v128) (local $m i32) (local $b i32) (local $c i32)
    (local $k i32) (local $need i32) (local $lo i32) (local $hi i32) (local $e i32)
    (local.set $o (global.get $OUT))
    (block $done
      (loop $main
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.le_u (i32.add (local.get $i) (i32.const 16)) (local.get $n))
          (then
            (local.set $v (v128.load (i32.add (global.get $IN) (local.get $i))))
            (v128.store (local.get $o) (local.get $v))
            ;; Bytes that need more than a copy: under 0x20, `"`, `\`, and from 0x80 (their top bit).
            (local.set $m
              (i32.or
                (i8x16.bitmask (local.get $v))
                (i8x16.bitmask
                  (v128.or
                    (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20))
                    (v128.or
                      (i8x16.eq (local.get $v) (v128.const i8x16 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22))
                      (i8x16.eq (local.get $v) (v128.const i8x16 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c)))))))
            (if (i32.eqz (local.get $m))
              (then
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (local.set $o (i32.add (local.get $o) (i32.const 16)))
                (br $main)))
            ;; The copied bytes before the first that needs more stand; the rest is written again.
            (local.set $k (i32.ctz (local.get $m)))
            (local.set $i (i32.add (local.get $i) (local.get $k)))
            (local.set $o (i32.add (local.get $o) (local.get $k)))))
        (local.set $b (i32.load8_u (i32.add (global.get $IN) (local.get $i))))
        (if (i32.lt_u (local.get $b) (i32.const 0x80))
          (then
            (if (i32.or (i32.lt_u (local.get $b) (i32.const 0x20))
                  (i32.or (i32.eq (local.get $b) (i32.const 0x22)) (i32.eq (local.get $b) (i32.const 0x5c))))
              (then
                (local.set $e (i32.shl (local.get $b) (i32.const 3)))
                ;; Eight bytes from the table: the escape's (two or six), then slack the next write covers.
                (i64.store (local.get $o) (i64.load offset=1 (local.get $e)))
                (local.set $o (i32.add (local.get $o) (i32.load8_u (local.get $e)))))
              (else
                (i32.store8 (local.get $o) (local.get $b))
                (local.set $o (i32.add (local.get $o) (i32.const 1)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $main)))
        ;; A lead byte: how many continuation bytes it needs, and the range of the first.
        (local.set $need (i32.const 0))
        (local.set $lo (i32.const 0x80))
        (local.set $hi (i32.const 0xbf))
        (if (i32.and (i32.ge_u (local.get $b) (i32.const 0xc2)) (i32.le_u (local.get $b) (i32.const 0xdf)))
          (then (local.set $need (i32.const 1))))
        (if (i32.and (i32.ge_u (local.get $b) (i32.const 0xe0)) (i32.le_u (local.get $b) (i32.const 0xef)))
          (then
            (local.set $need (i32.const 2))
            (if (i32.eq (local.get $b) (i32.const 0xe0)) (then (local.set $lo (i32.const 0xa0))))
            (if (i32.eq (local.get $b) (i32.const 0xed)) (then (local.set $hi (i32.const 0x9f))))))
        (if (i32.and (i32.ge_u (local.get $b) (i32.const 0xf0)) (i32.le_u (local.get $b) (i32.const 0xf4)))
          (then
            (local.set $need (i32.const 3))
            (if (i32.eq (local.get $b) (i32.const 0xf0)) (then (local.set $lo (i32.const 0x90))))
            (if (i32.eq (local.get $b) (i32.const 0xf4)) (then (local.set $hi (i32.const 0x8f))))))
        (if (i32.eqz (local.get $need))
          (then
            (local.set $o (call $fffd (local.get $o)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $main)))
        (local.set $k (i32.const 1))
        (loop $continuation
          (if (i32.ge_u (i32.add (local.get $i) (local.get $k)) (local.get $n))
            (then
              (global.set $stopped (local.get $i))
              (return (i32.sub (local.get $o) (global.get $OUT)))))
          (local.set $c (i32.load8_u (i32.add (global.get $IN) (i32.add (local.get $i) (local.get $k)))))
          (if (if (result i32) (i32.eq (local.get $k) (i32.const 1))
                (then (i32.or (i32.lt_u (local.get $c) (local.get $lo)) (i32.gt_u (local.get $c) (local.get $hi))))
                (else (i32.or (i32.lt_u (local.get $c) (i32.const 0x80)) (i32.gt_u (local.get $c) (i32.const 0xbf)))))
            (then
              ;; The offending byte is not taken: it starts over on its own.
              (local.set $o (call $fffd (local.get $o)))
              (local.set $i (i32.add (local.get $i) (local.get $k)))
              (br $main)))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br_if $continuation (i32.le_u (local.get $k) (local.get $need))))
        ;; Four bytes stored for a character of two to four: the rest is covered by the next write.
        (i32.store (local.get $o) (i32.load (i32.add (global.get $IN) (local.get $i))))
        (local.set $o (i32.add (local.get $o) (i32.add (local.get $need) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.add (local.get $need) (i32.const 1))))
        (br $main)))
    (global.set $stopped (local.get $n))
    (i32.sub (local.get $o) (global.get $OUT))))
