// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-half-cast-through-f32 | FileCheck %s

// f16 -> bf16 (and back) goes through f32: tosa-to-linalg would make one
// arith.truncf between types of equal width, which does not verify.
// CHECK-LABEL: func.func @f16_to_bf16(
// CHECK:         %[[W:.*]] = tosa.cast %arg0 : (tensor<2x?xf16>) -> tensor<2x?xf32>
// CHECK:         %[[N:.*]] = tosa.cast %[[W]] : (tensor<2x?xf32>) -> tensor<2x?xbf16>
// CHECK:         return %[[N]]
func.func @f16_to_bf16(%arg0: tensor<2x?xf16>) -> tensor<2x?xbf16> {
  %0 = tosa.cast %arg0 : (tensor<2x?xf16>) -> tensor<2x?xbf16>
  return %0 : tensor<2x?xbf16>
}

// -----

// CHECK-LABEL: func.func @bf16_to_f16(
// CHECK:         %[[W:.*]] = tosa.cast %arg0 : (tensor<3xbf16>) -> tensor<3xf32>
// CHECK:         tosa.cast %[[W]] : (tensor<3xf32>) -> tensor<3xf16>
func.func @bf16_to_f16(%arg0: tensor<3xbf16>) -> tensor<3xf16> {
  %0 = tosa.cast %arg0 : (tensor<3xbf16>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}

// -----

// Other casts stay as they are.
// CHECK-LABEL: func.func @others(
// CHECK-COUNT-2: tosa.cast
// CHECK-NOT:     tosa.cast
func.func @others(%arg0: tensor<3xf16>) -> tensor<3xbf16> {
  %0 = tosa.cast %arg0 : (tensor<3xf16>) -> tensor<3xf32>
  %1 = tosa.cast %0 : (tensor<3xf32>) -> tensor<3xbf16>
  return %1 : tensor<3xbf16>
}
