// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-generalize 2>/dev/null | FileCheck %s

// Named data-movement ops become linalg.generic, which the tiler plans.
// CHECK-LABEL: func.func @transpose(
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
func.func @transpose(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = tensor.empty() : tensor<8x4xf32>
  %1 = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%0 : tensor<8x4xf32>) permutation = [1, 0]
  return %1 : tensor<8x4xf32>
}

// -----

// A contraction stays named: pack-columns and the planner read it as it is.
// CHECK-LABEL: func.func @matmul(
// CHECK:         linalg.batch_matmul
func.func @matmul(%a: tensor<1x8x16xf32>, %b: tensor<1x16x16xf32>, %c: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<1x8x16xf32>, tensor<1x16x16xf32>) outs(%c : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  return %0 : tensor<1x8x16xf32>
}
