// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-pack-columns=cpu=avx512 | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-pack-columns=cpu=avx2 | FileCheck %s --check-prefix=AVX2

// A big contraction reads B in column panels of 32: a private packing
// function (inlined after tiling) makes B [N/32, 1, K, 32], and the
// contraction becomes a generic writing C viewed as [.., N/32, 32].
// CHECK-LABEL: func.func private @__tosa_custom_pack_0(
// CHECK-SAME:    tensor<1x256x512xf32>) -> tensor<16x1x256x32xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<1x256x16x32xf32>
// CHECK:         linalg.transpose {{.*}} permutation = [2, 0, 1, 3]
// CHECK-LABEL: func.func @big(
// CHECK:         %[[P:.*]] = call @__tosa_custom_pack_0(%arg1)
// CHECK:         %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x128x16x32xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %[[P]] : tensor<1x128x256xf32>, tensor<16x1x256x32xf32>) outs(%[[F]] : tensor<1x128x16x32xf32>)
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0], [1], [2, 3]] : tensor<1x128x16x32xf32> into tensor<1x128x512xf32>
// CHECK:         return %[[C]]
// CHECK-NOT:     linalg.batch_matmul
func.func @big(%arg0: tensor<1x128x256xf32>, %arg1: tensor<1x256x512xf32>) -> tensor<1x128x512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x128x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x128x512xf32>) -> tensor<1x128x512xf32>
  %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<1x128x256xf32>, tensor<1x256x512xf32>) outs(%1 : tensor<1x128x512xf32>) -> tensor<1x128x512xf32>
  return %2 : tensor<1x128x512xf32>
}

// -----

// A small one (8 rows, 16 columns) is left as it is: packing would cost more than it saves.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     call @__tosa_custom_pack
// CHECK:         linalg.batch_matmul
func.func @small(%arg0: tensor<1x8x16xf32>, %arg1: tensor<1x16x16xf32>) -> tensor<1x8x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x8x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<1x8x16xf32>, tensor<1x16x16xf32>) outs(%1 : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  return %2 : tensor<1x8x16xf32>
}

// -----

// Columns that 32 does not divide (250 = 7 x 32 + 26): B is padded with zeros
// to 8 whole panels, and C computed at 256 columns is sliced back to 250.
// CHECK-LABEL: func.func private @__tosa_custom_pack_0(
// CHECK-SAME:    tensor<1x256x250xf32>) -> tensor<8x1x256x32xf32>
// CHECK:         %[[Z:.*]] = linalg.fill {{.*}} -> tensor<1x256x256xf32>
// CHECK:         tensor.insert_slice %arg0 into %[[Z]][0, 0, 0] [1, 256, 250] [1, 1, 1]
// CHECK-LABEL: func.func @padded(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x128x8x32xf32>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape {{.*}} into tensor<1x128x256xf32>
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[C]][0, 0, 0] [1, 128, 250] [1, 1, 1]
// CHECK:         return %[[S]]
func.func @padded(%arg0: tensor<1x128x256xf32>, %arg1: tensor<1x256x250xf32>) -> tensor<1x128x250xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x128x250xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x128x250xf32>) -> tensor<1x128x250xf32>
  %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<1x128x256xf32>, tensor<1x256x250xf32>) outs(%1 : tensor<1x128x250xf32>) -> tensor<1x128x250xf32>
  return %2 : tensor<1x128x250xf32>
}

// -----

// A convolution whose filter is a constant (here [kh, kw, c, f], as
// make-columns-contiguous leaves it) gets it packed now, in numpy: no copy
// per call. AVX2 (NR 16): 32 filters are two panels [2, kh, kw, c, 16], the
// input's windows (oh + kh, ow + kw) renumbered, C viewed as [.., 2, 16].
// AVX-512 (NR 32): one panel, nothing to pack. A filter computed at run time
// is not packed: the copy would cost more than the small maps it serves save.
// CHECK-LABEL:  func.func @conv_constant_filter(
// CHECK-NOT:      arith.constant dense<{{.*}}> : tensor<1x1x1x16xf32>
// CHECK:          linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x4x4x1xf32>, tensor<1x1x1x32xf32>)
// AVX2-DAG:       #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d3 + d6, d7)>
// AVX2-DAG:       #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7, d4)>
// AVX2-DAG:       #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d3, d2, d4)>
// AVX2-LABEL:   func.func @conv_constant_filter(
// AVX2-NOT:       call
// AVX2:           %[[P:.*]] = arith.constant dense<{{\[\[\[\[\[}}0.000000e+00, {{.*}}, 1.500000e+01]]]], {{\[\[\[\[}}1.600000e+01, {{.*}}, 3.100000e+01]]]]]> : tensor<2x1x1x1x16xf32>
// AVX2:           %[[G:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]]{{.*}} ins(%arg0, %[[P]] : tensor<1x4x4x1xf32>, tensor<2x1x1x1x16xf32>) outs(%{{.*}} : tensor<1x4x4x2x16xf32>)
// AVX2:           tensor.collapse_shape %[[G]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x4x4x2x16xf32> into tensor<1x4x4x32xf32>
// AVX2-LABEL:   func.func @conv_computed_filter(
// AVX2-NOT:       call
// AVX2:           linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x4x4x1xf32>, tensor<1x1x1x32xf32>)
#in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#w = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @conv_constant_filter(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x32xf32> {
  %w = arith.constant dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]]]> : tensor<1x1x1x32xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x4x4x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  %2 = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x4x1xf32>, tensor<1x1x1x32xf32>) outs(%1 : tensor<1x4x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x32xf32>
  return %2 : tensor<1x4x4x32xf32>
}
func.func @conv_computed_filter(%x: tensor<1x4x4x1xf32>, %w: tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x4x4x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  %2 = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x4x1xf32>, tensor<1x1x1x32xf32>) outs(%1 : tensor<1x4x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x32xf32>
  return %2 : tensor<1x4x4x32xf32>
}
