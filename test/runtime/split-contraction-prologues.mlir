// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-split-contraction-prologues | FileCheck %s

// A layer norm's scaling fused into a linear layer's A side: computed once
// per element of A in a generic over A's loops (m, k), and the contraction
// multiplies its result (B's loop n is not among them: it was computed N
// times per element before).
// CHECK-DAG:   #[[MK:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[M:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[K:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG:   #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @layer_norm_then_linear(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x32xf32>
// CHECK:         %[[N:.*]] = linalg.generic {indexing_maps = [#[[MK]], #[[M]], #[[K]], #[[MK]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1, %arg2 : tensor<8x32xf32>, tensor<8x1xf32>, tensor<1x32xf32>) outs(%[[E]] : tensor<8x32xf32>)
// CHECK:           math.rsqrt
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           linalg.yield
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[N]], %arg3 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%arg4 : tensor<8x64xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[O]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
#x = affine_map<(m, n, k) -> (m, k)>
#v = affine_map<(m, n, k) -> (m, 0)>
#g = affine_map<(m, n, k) -> (0, k)>
#w = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @layer_norm_then_linear(%x: tensor<8x32xf32>, %var: tensor<8x1xf32>, %gamma: tensor<1x32xf32>, %w: tensor<32x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %eps = arith.constant 1.0e-06 : f32
  %0 = linalg.generic {indexing_maps = [#x, #v, #g, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %var, %gamma, %w : tensor<8x32xf32>, tensor<8x1xf32>, tensor<1x32xf32>, tensor<32x64xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%a: f32, %s: f32, %g1: f32, %b: f32, %o: f32):
    %1 = arith.addf %s, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %a, %2 : f32
    %4 = arith.mulf %3, %g1 : f32
    %5 = arith.mulf %4, %b : f32
    %6 = arith.addf %o, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// Work on the B side (here a scale of the weights, as a dequantization
// would be) stays: only the side without the columns' loop is taken out,
// and a plain contraction is left alone.
// CHECK-LABEL: func.func @b_side_and_plain(
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<8x32xf32>, tensor<32x64xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<8x32xf32>, tensor<32x64xf32>)
#x2 = affine_map<(m, n, k) -> (m, k)>
#w2 = affine_map<(m, n, k) -> (k, n)>
#c2 = affine_map<(m, n, k) -> (m, n)>
func.func @b_side_and_plain(%x: tensor<8x32xf32>, %w: tensor<32x64xf32>, %c: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %scale = arith.constant 0.5 : f32
  %0 = linalg.generic {indexing_maps = [#x2, #w2, #c2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<8x32xf32>, tensor<32x64xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %1 = arith.mulf %b, %scale : f32
    %2 = arith.mulf %a, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<8x64xf32>
  %4 = linalg.generic {indexing_maps = [#x2, #w2, #c2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<8x32xf32>, tensor<32x64xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %5 = arith.mulf %a, %b : f32
    %6 = arith.addf %o, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<8x64xf32>
  return %0, %4 : tensor<8x64xf32>, tensor<8x64xf32>
}
