// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-distinct-results | FileCheck %s

// A buffer returned twice: the second result gets its own copy, which
// buffer-results-to-out-params{hoist-static-allocs} can then hoist (it would
// otherwise erase the one allocation twice).
// CHECK-LABEL: func.func @returned_twice(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         memref.copy %[[A]], %[[B]]
// CHECK:         return %[[A]], %[[B]]
func.func @returned_twice() -> (memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  return %a, %a : memref<4xf32>, memref<4xf32>
}

// -----

// Distinct results are left alone; an argument returned twice gets a copy for its repeat only.
// CHECK-LABEL: func.func @distinct_and_argument(
// CHECK-SAME:    %[[ARG:.*]]: memref<2xi32>
// CHECK:         %[[A:.*]] = memref.alloc() : memref<2xi32>
// CHECK:         %[[C:.*]] = memref.alloc() : memref<2xi32>
// CHECK-NEXT:    memref.copy %[[ARG]], %[[C]]
// CHECK-NEXT:    return %[[A]], %[[ARG]], %[[C]]
func.func @distinct_and_argument(%arg: memref<2xi32>) -> (memref<2xi32>, memref<2xi32>, memref<2xi32>) {
  %a = memref.alloc() : memref<2xi32>
  return %a, %arg, %arg : memref<2xi32>, memref<2xi32>, memref<2xi32>
}
