// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-narrow-i64-casts | FileCheck %s

// Llama's positions: an i64 constant, through i32 and back, reshaped, cast to
// f32. The reshape moves i32 values and the cast is from i32; no i64 is left.
// CHECK-LABEL: func.func @positions(
// CHECK-NOT:     i64
// CHECK:         %[[P:.*]] = "tosa.const"() <{values = dense<[0, 1, 2, 3]> : tensor<4xi32>}>
// CHECK:         %[[R:.*]] = tosa.reshape %[[P]], %{{.*}} : (tensor<4xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
// CHECK:         %[[F:.*]] = tosa.cast %[[R]] : (tensor<1x4xi32>) -> tensor<1x4xf32>
// CHECK:         return %[[F]]
func.func @positions() -> tensor<1x4xf32> {
  %s = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %c = "tosa.const"() <{values = dense<[0, 1, 2, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %0 = tosa.cast %c : (tensor<4xi64>) -> tensor<4xi32>
  %1 = tosa.cast %0 : (tensor<4xi32>) -> tensor<4xi64>
  %2 = tosa.reshape %1, %s : (tensor<4xi64>, !tosa.shape<2>) -> tensor<1x4xi64>
  %3 = tosa.cast %2 : (tensor<1x4xi64>) -> tensor<1x4xf32>
  return %3 : tensor<1x4xf32>
}

// -----

// A cast of an integer constant to a float is a float constant (arange(3.0)).
// CHECK-LABEL: func.func @constant_to_float(
// CHECK-NOT:     i64
// CHECK:         "tosa.const"() <{values = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf64>}>
// CHECK:         "tosa.const"() <{values = dense<7.000000e+00> : tensor<2xf32>}>
func.func @constant_to_float() -> (tensor<3xf64>, tensor<2xf32>) {
  %c = "tosa.const"() <{values = dense<[0, 1, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = tosa.cast %c : (tensor<3xi64>) -> tensor<3xf64>
  %s = "tosa.const"() <{values = dense<7> : tensor<2xi64>}> : () -> tensor<2xi64>
  %1 = tosa.cast %s : (tensor<2xi64>) -> tensor<2xf32>
  return %0, %1 : tensor<3xf64>, tensor<2xf32>
}

// -----

// An argument (a state counter, input ids) or i64 arithmetic: the range is
// not known, the cast stays (and tosa-validate names it).
// CHECK-LABEL: func.func @unknown_range(
// CHECK:         tosa.cast %{{.*}} : (tensor<4xi64>) -> tensor<4xf32>
// CHECK:         tosa.cast %{{.*}} : (tensor<4xi64>) -> tensor<4xf32>
func.func @unknown_range(%x: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tosa.cast %x : (tensor<4xi64>) -> tensor<4xf32>
  %1 = tosa.add %x, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = tosa.cast %1 : (tensor<4xi64>) -> tensor<4xf32>
  return %0, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A constant beyond i32 moved by a reshape: not narrowed.
// CHECK-LABEL: func.func @too_wide(
// CHECK:         tosa.cast %{{.*}} : (tensor<1x2xi64>) -> tensor<1x2xi32>
func.func @too_wide() -> tensor<1x2xi32> {
  %s = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %c = "tosa.const"() <{values = dense<[0, 4294967296]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = tosa.reshape %c, %s : (tensor<2xi64>, !tosa.shape<2>) -> tensor<1x2xi64>
  %1 = tosa.cast %0 : (tensor<1x2xi64>) -> tensor<1x2xi32>
  return %1 : tensor<1x2xi32>
}
