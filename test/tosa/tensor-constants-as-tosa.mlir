// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-tensor-constants-as-tosa | FileCheck %s

// BERT's attention mask path leaves an index tensor as arith.constant.
// CHECK-LABEL: func.func @index_tensor(
// CHECK-NOT:     arith.constant
// CHECK:         %[[C:.*]] = "tosa.const"() <{values = dense<[0, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK:         return %[[C]]
func.func @index_tensor() -> tensor<2xi64> {
  %0 = arith.constant dense<[0, 1]> : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// A scalar arith.constant is not a tensor: it stays.
// CHECK-LABEL: func.func @scalar(
// CHECK:         arith.constant 3 : i64
func.func @scalar() -> i64 {
  %0 = arith.constant 3 : i64
  return %0 : i64
}
