// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-write-results-in-place | FileCheck %s

// A result computed in a reshaped buffer and copied out at the end is
// computed in the caller's buffer, viewed in that shape: no allocation, no copy.
// CHECK-LABEL: func.func @reshaped(
// CHECK-SAME:    %{{.*}}: memref<2x12xf32>, %[[OUT:.*]]: memref<2x12xf32>)
// CHECK-NEXT:    %[[V:.*]] = memref.expand_shape %[[OUT]] {{\[\[}}0], [1, 2]] output_shape [2, 3, 4] : memref<2x12xf32> into memref<2x3x4xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[V]] : memref<2x3x4xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.copy
func.func @reshaped(%a: memref<2x12xf32>, %out: memref<2x12xf32>) {
  %alloc = memref.alloc() : memref<2x3x4xf32>
  %cst = arith.constant 1.0 : f32
  linalg.fill ins(%cst : f32) outs(%alloc : memref<2x3x4xf32>)
  %c = memref.collapse_shape %alloc [[0], [1, 2]] : memref<2x3x4xf32> into memref<2x12xf32>
  memref.copy %c, %out : memref<2x12xf32> to memref<2x12xf32>
  return
}

// -----

// A copy of an argument (not an allocation) stays.
// CHECK-LABEL: func.func @from_argument(
// CHECK:         memref.copy
func.func @from_argument(%a: memref<2x3x4xf32>, %out: memref<2x12xf32>) {
  %c = memref.collapse_shape %a [[0], [1, 2]] : memref<2x3x4xf32> into memref<2x12xf32>
  memref.copy %c, %out : memref<2x12xf32> to memref<2x12xf32>
  return
}
