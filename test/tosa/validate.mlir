// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-narrow-f64 --tosa-custom-narrow-i64-gather \
// RUN:   --tosa-attach-target="profiles=pro_fp" --tosa-validate | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-attach-target="profiles=pro_fp" --tosa-validate \
// RUN:   -verify-diagnostics -o /dev/null

// What the narrowing passes leave validates for pro_fp; before them,
// tosa-validate names each op (the second RUN line).
// CHECK: module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_fp], extensions = []>}
// CHECK-LABEL: func.func @variance(
func.func @variance(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  // expected-error @below {{'tosa.cast' op is not profile-aligned: element type 'f64' is not legal}}
  %0 = tosa.cast %x : (tensor<2x8xf32>) -> tensor<2x8xf64>
  // expected-error @below {{'tosa.reduce_sum' op is not profile-aligned: element type 'f64' is not legal}}
  %1 = tosa.reduce_sum %0 {axis = 1 : i32} : (tensor<2x8xf64>) -> tensor<2x1xf64>
  // expected-error @below {{'tosa.cast' op is not profile-aligned: element type 'f64' is not legal}}
  %2 = tosa.cast %1 : (tensor<2x1xf64>) -> tensor<2x1xf32>
  return %2 : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func.func @embedding_table(
func.func @embedding_table(%i: tensor<1x3xi32>) -> tensor<1x3x1xi64> {
  %t = "tosa.const"() <{values = dense<[[[0], [1]]]> : tensor<1x2x1xi64>}> : () -> tensor<1x2x1xi64>
  // expected-error @below {{'tosa.gather' op illegal: operation operand/result data types did not align with any profile or extension}}
  %0 = tosa.gather %t, %i : (tensor<1x2x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
  return %0 : tensor<1x3x1xi64>
}
