// RUN: tosa-custom-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named, tosa-to-linalg), tosa-custom-max-min-from-infinity)" | FileCheck %s

// reduce_max starts from -inf, reduce_min from +inf (tosa-to-linalg: the
// lowest and highest finite values), so a row of -inf reduces to -inf.
// CHECK-LABEL: func.func @reductions(
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         linalg.fill ins(%[[NINF]] : f32)
// CHECK:         arith.maximumf
// CHECK:         %[[PINF:.*]] = arith.constant 0x7F80 : bf16
// CHECK:         linalg.fill ins(%[[PINF]] : bf16)
// CHECK:         arith.minimumf
func.func @reductions(%a: tensor<3x2xf32>, %b: tensor<3x2xbf16>) -> (tensor<3x1xf32>, tensor<1x2xbf16>) {
  %0 = tosa.reduce_max %a {axis = 1 : i32} : (tensor<3x2xf32>) -> tensor<3x1xf32>
  %1 = tosa.reduce_min %b {axis = 0 : i32} : (tensor<3x2xbf16>) -> tensor<1x2xbf16>
  return %0, %1 : tensor<3x1xf32>, tensor<1x2xbf16>
}

// -----

// max_pool2d: its start and its padding.
// CHECK-LABEL: func.func @max_pool(
// CHECK:         %[[PAD:.*]] = arith.constant 0xFC00 : f16
// CHECK:         tensor.pad
// CHECK:           tensor.yield %[[PAD]] : f16
// CHECK:         %[[START:.*]] = arith.constant 0xFC00 : f16
// CHECK:         linalg.fill ins(%[[START]] : f16)
// CHECK:         linalg.pooling_nhwc_max
func.func @max_pool(%a: tensor<1x3x3x2xf16>) -> tensor<1x2x2x2xf16> {
  %0 = tosa.max_pool2d %a {kernel = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x3x2xf16>) -> tensor<1x2x2x2xf16>
  return %0 : tensor<1x2x2x2xf16>
}

// -----

// Integer reductions and sums keep their starts.
// CHECK-LABEL: func.func @others(
// CHECK-NOT:     0xFF800000
// CHECK:         arith.constant -2147483648 : i32
// CHECK-NOT:     0xFF800000
func.func @others(%a: tensor<3x2xi32>, %b: tensor<3x2xf32>) -> (tensor<3x1xi32>, tensor<3x1xf32>) {
  %0 = tosa.reduce_max %a {axis = 1 : i32} : (tensor<3x2xi32>) -> tensor<3x1xi32>
  %1 = tosa.reduce_sum %b {axis = 1 : i32} : (tensor<3x2xf32>) -> tensor<3x1xf32>
  return %0, %1 : tensor<3x1xi32>, tensor<3x1xf32>
}
