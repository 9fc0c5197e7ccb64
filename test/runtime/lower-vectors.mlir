// RUN: tosa-custom-opt %s --tosa-custom-lower-vectors 2>/dev/null | FileCheck %s

// A 2-D multi-reduction becomes one horizontal reduction per row, each
// seeded with its accumulator lane: what convert-vector-to-llvm lowers well.
// CHECK-LABEL: func.func @rowsum(
// CHECK-NOT:     vector.multi_reduction
// CHECK:         %[[R0:.*]] = vector.extract %arg0[0] : vector<8xf32> from vector<4x8xf32>
// CHECK:         %[[A0:.*]] = vector.extract %arg1[0] : f32 from vector<4xf32>
// CHECK:         vector.reduction <add>, %[[R0]], %[[A0]] : vector<8xf32> into f32
// CHECK-COUNT-3: vector.reduction <add>
// CHECK:         return
func.func @rowsum(%v: vector<4x8xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %0 = vector.multi_reduction <add>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32>
  return %0 : vector<4xf32>
}
