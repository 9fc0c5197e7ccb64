// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-vulkan-distinct-results | FileCheck %s

// A value returned twice (here through a tosa.identity, which the converter
// folds) is returned once; the map says which returned value each original
// result is, and the first occurrence's attributes stay.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME:    -> (tensor<4xf32> {tosa_custom.output = 0 : i64}, tensor<4xf32> {tosa_custom.output = 2 : i64})
// CHECK-SAME:    tosa_custom.vulkan_results = [0, 1, 0, 0]
// CHECK:         %[[A:.*]] = tosa.abs %arg0
// CHECK:         %[[N:.*]] = tosa.floor %arg0
// CHECK:         return %[[A]], %[[N]] : tensor<4xf32>, tensor<4xf32>
func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32> {tosa_custom.output = 0 : i64}, tensor<4xf32> {tosa_custom.output = 2 : i64}, tensor<4xf32> {tosa_custom.output = 1 : i64}, tensor<4xf32> {tosa_custom.output = 3 : i64}) {
  %0 = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.floor %x : (tensor<4xf32>) -> tensor<4xf32>
  %2 = tosa.identity %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Distinct values, an argument among them: nothing changes, no map.
// CHECK-LABEL: func.func @distinct(
// CHECK-NOT:     tosa_custom.vulkan_results
// CHECK:         return %arg0, %{{.*}} : tensor<4xf32>, tensor<4xf32>
func.func @distinct(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>
  return %x, %0 : tensor<4xf32>, tensor<4xf32>
}
