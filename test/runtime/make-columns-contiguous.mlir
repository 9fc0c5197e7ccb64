// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-make-columns-contiguous | FileCheck %s

// B read as (n, k): its column loop n is not innermost, so B is transposed
// once to (k, n) and the contraction reads the copy with the map swapped.
// CHECK-DAG:   #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @b_transposed(
// CHECK:         %[[T:.*]] = linalg.transpose ins(%arg1 : tensor<64x32xf32>) outs(%{{.*}} : tensor<32x64xf32>) permutation = [1, 0]
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[BT]], #{{.*}}]{{.*}} ins(%arg0, %[[T]] : tensor<16x32xf32>, tensor<32x64xf32>)
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @b_transposed(%a: tensor<16x32xf32>, %b: tensor<64x32xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x32xf32>, tensor<64x32xf32>) outs(%c : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// B already (k, n): nothing to do.
// CHECK-LABEL: func.func @b_contiguous(
// CHECK-NOT:     linalg.transpose
#a2 = affine_map<(m, n, k) -> (m, k)>
#b2 = affine_map<(m, n, k) -> (k, n)>
#c2 = affine_map<(m, n, k) -> (m, n)>
func.func @b_contiguous(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = linalg.generic {indexing_maps = [#a2, #b2, #c2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%c : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
