// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-pack-columns=cpu=avx512 | FileCheck %s

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
