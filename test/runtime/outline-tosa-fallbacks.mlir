// RUN: tosa-custom-opt %s --tosa-custom-outline-tosa-fallbacks | FileCheck %s

// tosa.scatter has no linalg lowering: it runs as a runtime kernel, a
// tosa.custom of domain tosa_custom.runtime with the same operands and results.
// CHECK-LABEL: func.func @scatter(
// CHECK:         %[[R:.*]] = tosa.custom %{{.*}}, %{{.*}}, %{{.*}} {domain_name = "tosa_custom.runtime", implementation_attrs = "", operator_name = "tosa.scatter"}
// CHECK-NOT:     tosa.scatter
// CHECK:         return %[[R]]
func.func @scatter(%v: tensor<1x4x2xf32>, %i: tensor<1x2xi32>, %u: tensor<1x2x2xf32>) -> tensor<1x4x2xf32> {
  %0 = tosa.scatter %v, %i, %u : (tensor<1x4x2xf32>, tensor<1x2xi32>, tensor<1x2x2xf32>) -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}
