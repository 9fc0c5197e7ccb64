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

// -----

// A constant B (a convolution's f x kh x kw x c filter) is transposed now,
// into a new constant (w[f, kh, kw, c] -> [kh, kw, c, f]), not by a linalg.transpose on every call;
// a splat stays a splat.
// CHECK-LABEL: func.func @constant_filter(
// CHECK:         %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 5.000000e+00], [2.000000e+00, 6.000000e+00]], {{\[\[}}3.000000e+00, 7.000000e+00], [4.000000e+00, 8.000000e+00]]]]> : tensor<1x2x2x2xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         ins(%arg0, %[[W]] : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>)
// CHECK:         %[[Z:.*]] = arith.constant dense<5.000000e-01> : tensor<1x1x2x3xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         ins(%arg0, %[[Z]] : tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>)
#in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#w = affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>
#out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @constant_filter(%x: tensor<1x4x4x2xf32>, %c: tensor<1x4x3x2xf32>, %d: tensor<1x4x4x3xf32>) -> (tensor<1x4x3x2xf32>, tensor<1x4x4x3xf32>) {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]> : tensor<2x1x2x2xf32>
  %0 = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x4x2xf32>, tensor<2x1x2x2xf32>) outs(%c : tensor<1x4x3x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x3x2xf32>
  %z = arith.constant dense<0.5> : tensor<3x1x1x2xf32>
  %1 = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %z : tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>) outs(%d : tensor<1x4x4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x3xf32>
  return %0, %1 : tensor<1x4x3x2xf32>, tensor<1x4x4x3xf32>
}
