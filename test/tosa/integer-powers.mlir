// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-integer-powers | FileCheck %s

// x ** 2 and x ** 3 (a tanh gelu's cube): products, defined for a negative
// base, where TOSA leaves POW unpredictable.
// CHECK-LABEL: func.func @square_and_cube(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4xf32>
// CHECK-NOT:     tosa.pow
// CHECK:         %[[S:.*]] = tosa.mul %[[X]], %[[X]], %{{.*}} : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<1xi8>)
// CHECK:         %[[S3:.*]] = tosa.mul %[[X]], %[[X]], %{{.*}}
// CHECK:         %[[C:.*]] = tosa.mul %[[S3]], %[[X]], %{{.*}}
// CHECK:         return %[[S]], %[[C]]
func.func @square_and_cube(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %two = "tosa.const"() <{values = dense<2.000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %three = "tosa.const"() <{values = dense<3.000000e+00> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %0 = tosa.pow %x, %two : (tensor<3x4xf32>, tensor<1x1xf32>) -> tensor<3x4xf32>
  %1 = tosa.pow %x, %three : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// Another exponent, a tensor exponent, and a base broadcast by its exponent stay.
// CHECK-LABEL: func.func @others(
// CHECK-COUNT-3: tosa.pow
func.func @others(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>, %r: tensor<1x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %half = "tosa.const"() <{values = dense<2.500000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %two = "tosa.const"() <{values = dense<2.000000e+00> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %0 = tosa.pow %x, %half : (tensor<3x4xf32>, tensor<1x1xf32>) -> tensor<3x4xf32>
  %1 = tosa.pow %x, %y : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = tosa.pow %r, %two : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}
