// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-depthwise-in-accumulator-type | FileCheck %s

// A float16 depthwise convolution with an f32 accumulator is computed in f32,
// bias included, and rounded once: tosa-to-linalg-named would round the sum to
// f16 and add the bias after, in f16.
// CHECK-LABEL: func.func @f16(
// CHECK-DAG:     %[[X:.*]] = tosa.cast %arg0 : (tensor<1x1x4x2xf16>) -> tensor<1x1x4x2xf32>
// CHECK-DAG:     %[[W:.*]] = tosa.cast %arg1 : (tensor<1x4x2x1xf16>) -> tensor<1x4x2x1xf32>
// CHECK-DAG:     %[[B:.*]] = tosa.cast %arg2 : (tensor<2xf16>) -> tensor<2xf32>
// CHECK:         %[[C:.*]] = tosa.depthwise_conv2d %[[X]], %[[W]], %[[B]], %{{.*}}, %{{.*}} {acc_type = f32, dilation = array<i64: 1, 2>, pad = array<i64: 0, 0, 3, 3>, stride = array<i64: 1, 1>} : ({{.*}}) -> tensor<1x1x4x2xf32>
// CHECK:         %[[R:.*]] = tosa.cast %[[C]] : (tensor<1x1x4x2xf32>) -> tensor<1x1x4x2xf16>
// CHECK:         return %[[R]]
func.func @f16(%arg0: tensor<1x1x4x2xf16>, %arg1: tensor<1x4x2x1xf16>, %arg2: tensor<2xf16>) -> tensor<1x1x4x2xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.depthwise_conv2d %arg0, %arg1, %arg2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 2>, pad = array<i64: 0, 0, 3, 3>, stride = array<i64: 1, 1>} : (tensor<1x1x4x2xf16>, tensor<1x4x2x1xf16>, tensor<2xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x1x4x2xf16>
  return %0 : tensor<1x1x4x2xf16>
}

// -----

// CHECK-LABEL: func.func @bf16(
// CHECK:         tosa.depthwise_conv2d {{.*}} -> tensor<1x4x4x4xf32>
// CHECK:         tosa.cast {{.*}} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xbf16>
func.func @bf16(%arg0: tensor<1x6x6x4xbf16>, %arg1: tensor<3x3x4x1xbf16>, %arg2: tensor<4xbf16>) -> tensor<1x4x4x4xbf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %0 = tosa.depthwise_conv2d %arg0, %arg1, %arg2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xbf16>, tensor<3x3x4x1xbf16>, tensor<4xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4x4x4xbf16>
  return %0 : tensor<1x4x4x4xbf16>
}

// -----

// An f16 accumulator, and f32 convolutions, stay as they are.
// CHECK-LABEL: func.func @others(
// CHECK-NOT:     tosa.cast
// CHECK-COUNT-2: tosa.depthwise_conv2d
// CHECK-NOT:     tosa.cast
func.func @others(%arg0: tensor<1x1x4x2xf16>, %arg1: tensor<1x4x2x1xf16>, %arg2: tensor<2xf16>,
                  %arg3: tensor<1x1x4x2xf32>, %arg4: tensor<1x4x2x1xf32>, %arg5: tensor<2xf32>) -> (tensor<1x1x1x2xf16>, tensor<1x1x1x2xf32>) {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %zp32 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %arg0, %arg1, %arg2, %zp, %zp {acc_type = f16, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x4x2xf16>, tensor<1x4x2x1xf16>, tensor<2xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x1x1x2xf16>
  %1 = tosa.depthwise_conv2d %arg3, %arg4, %arg5, %zp32, %zp32 {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x4x2xf32>, tensor<1x4x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
  return %0, %1 : tensor<1x1x1x2xf16>, tensor<1x1x1x2xf32>
}
