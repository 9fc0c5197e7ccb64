// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-verify-tosa | FileCheck %s

// Only TOSA, func and the builtin ops CONTRACT.md 4.5 allows pass.
// CHECK-LABEL: func.func @tosa_and_allowed_builtins(
// CHECK:         tosa.add
// CHECK:         tensor.extract
func.func @tosa_and_allowed_builtins(%a: tensor<2xi64>, %b: tensor<i64>) -> (tensor<2xi64>, tensor<i64>) {
  %0 = tosa.add %a, %a : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %1 = tensor.extract %b[] : tensor<i64>
  %2 = tensor.from_elements %1 : tensor<i64>
  return %0, %2 : tensor<2xi64>, tensor<i64>
}

// -----

// Every foreign op is named, on its own location.
func.func @arith_left(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @below {{'arith.addi' is not TOSA: ops outside TOSA remain}}
  %0 = arith.addi %a, %b : tensor<2xi64>
  // expected-error @below {{'arith.muli' is not TOSA}}
  %1 = arith.muli %0, %b : tensor<2xi64>
  return %1 : tensor<2xi64>
}
