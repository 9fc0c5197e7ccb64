// RUN: tosa-custom-opt %s --tosa-custom-tensorize-builtin-scalar-boundary | FileCheck %s

// Scalars torch-mlir's lowering left at the boundary become 0-d tensors
// marked with their Python type: an argument is read with tensor.extract, a
// constant result is a tosa.const, another result a tensor.from_elements.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %{{.*}}: tensor<3xf32>, %[[F:.*]]: tensor<f64> {tosa_custom.scalar = "float"}, %{{.*}}: tensor<i1> {tosa_custom.scalar = "bool"})
// CHECK-SAME:    -> (tensor<3xf32>, tensor<i64> {tosa_custom.scalar = "int"}, tensor<f64> {tosa_custom.scalar = "float"})
// CHECK:         %[[E:.*]] = tensor.extract %[[F]][] : tensor<f64>
// CHECK:         %[[C:.*]] = "tosa.const"() <{values = dense<3> : tensor<i64>}>
// CHECK:         %[[T:.*]] = tensor.from_elements %[[E]] : tensor<f64>
// CHECK:         return %{{.*}}, %[[C]], %[[T]]
// CHECK-NOT:     arith.constant
func.func @forward(%arg0: tensor<3xf32>, %arg1: f64, %arg2: i1) -> (tensor<3xf32>, i64, f64) {
  %c3 = arith.constant 3 : i64
  return %arg0, %c3, %arg1 : tensor<3xf32>, i64, f64
}
