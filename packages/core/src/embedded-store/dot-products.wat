;; Dot products of one query vector with many stored vectors, with WebAssembly SIMD (f32x4).
;; The source of dot-products-wasm.ts, which `node scripts/build-wasm.mjs` regenerates.
;;
;; scores(query, matrix, dimension, rows, out, mask):
;;   for row in [0, rows): out[row] = mask == 0 || mask[row] != 0 ? Σ query[i] * matrix[row][i] : -inf
;; Addresses are byte offsets in the exported memory; vectors are float32; `dimension` must be a
;; multiple of 16 (callers zero-pad). Four accumulators (16 floats per step) hide the latency of
;; the additions.
(module
  (memory (export "memory") 1)
  (func (export "scores")
    (param $query i32) (param $matrix i32) (param $dimension i32) (param $rows i32) (param $out i32) (param $mask i32)
    (local $row i32) (local $p i32) (local $q i32) (local $end i32) (local $stride i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $sum v128)
    (local.set $stride (i32.shl (local.get $dimension) (i32.const 2)))
    (local.set $p (local.get $matrix))
    (block $done
      (loop $next_row
        (br_if $done (i32.ge_u (local.get $row) (local.get $rows)))
        (if (i32.or (i32.eqz (local.get $mask)) (i32.load8_u (i32.add (local.get $mask) (local.get $row))))
          (then
            (local.set $a0 (v128.const i32x4 0 0 0 0))
            (local.set $a1 (v128.const i32x4 0 0 0 0))
            (local.set $a2 (v128.const i32x4 0 0 0 0))
            (local.set $a3 (v128.const i32x4 0 0 0 0))
            (local.set $q (local.get $query))
            (local.set $end (i32.add (local.get $p) (local.get $stride)))
            (loop $step
              (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
              (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q)))))
              (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (local.get $p)) (v128.load offset=32 (local.get $q)))))
              (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (local.get $p)) (v128.load offset=48 (local.get $q)))))
              (local.set $p (i32.add (local.get $p) (i32.const 64)))
              (local.set $q (i32.add (local.get $q) (i32.const 64)))
              (br_if $step (i32.lt_u (local.get $p) (local.get $end))))
            (local.set $sum (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
            (f32.store
              (i32.add (local.get $out) (i32.shl (local.get $row) (i32.const 2)))
              (f32.add
                (f32.add (f32x4.extract_lane 0 (local.get $sum)) (f32x4.extract_lane 1 (local.get $sum)))
                (f32.add (f32x4.extract_lane 2 (local.get $sum)) (f32x4.extract_lane 3 (local.get $sum))))))
          (else
            (f32.store (i32.add (local.get $out) (i32.shl (local.get $row) (i32.const 2))) (f32.const -inf))
            (local.set $p (i32.add (local.get $p) (local.get $stride)))))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $next_row)))))
