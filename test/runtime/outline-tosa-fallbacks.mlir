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

// tosa.negate on i64: tosa-to-linalg's i16/i32 intermediate cannot hold it,
// so it runs as a runtime kernel; narrower negates stay for tosa-to-linalg.
// CHECK-LABEL: func.func @negate_i64(
// CHECK:         tosa.custom %{{.*}}, %{{.*}}, %{{.*}} {domain_name = "tosa_custom.runtime", implementation_attrs = "", operator_name = "tosa.negate"}
// CHECK:         tosa.negate %{{.*}} : (tensor<3xi32>
func.func @negate_i64(%a: tensor<3xi64>, %b: tensor<3xi32>) -> (tensor<3xi64>, tensor<3xi32>) {
  %z64 = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %z32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.negate %a, %z64, %z64 : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %1 = tosa.negate %b, %z32, %z32 : (tensor<3xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  return %0, %1 : tensor<3xi64>, tensor<3xi32>
}
