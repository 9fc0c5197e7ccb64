// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-integer-negate-as-sub | FileCheck %s

// An i64 negate with zero zero-points (torch-mlir's argmin of an int64
// tensor) becomes 0 - x, which tosa-to-linalg lowers; its own negate lowering
// overflows computing the intermediate width for i64.
// CHECK-LABEL: func.func @i64(
// CHECK:         %[[ZERO:.*]] = "tosa.const"() <{values = dense<0> : tensor<1x1xi64>}>
// CHECK:         %[[SUB:.*]] = tosa.sub %[[ZERO]], %arg0 : (tensor<1x1xi64>, tensor<3x5xi64>) -> tensor<3x5xi64>
// CHECK-NOT:     tosa.negate
// CHECK:         return %[[SUB]]
func.func @i64(%arg0: tensor<3x5xi64>) -> tensor<3x5xi64> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = tosa.negate %arg0, %zp, %zp : (tensor<3x5xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x5xi64>
  return %0 : tensor<3x5xi64>
}

// -----

// A 0-d one too (copysign of int64 scalars).
// CHECK-LABEL: func.func @i64_scalar(
// CHECK:         %[[ZERO:.*]] = "tosa.const"() <{values = dense<0> : tensor<i64>}>
// CHECK:         tosa.sub %[[ZERO]], %arg0 : (tensor<i64>, tensor<i64>) -> tensor<i64>
func.func @i64_scalar(%arg0: tensor<i64>) -> tensor<i64> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = tosa.negate %arg0, %zp, %zp : (tensor<i64>, tensor<1xi64>, tensor<1xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Other widths lower as they are.
// CHECK-LABEL: func.func @i32(
// CHECK:         tosa.negate
func.func @i32(%arg0: tensor<3xi32>) -> tensor<3xi32> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.negate %arg0, %zp, %zp : (tensor<3xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}
