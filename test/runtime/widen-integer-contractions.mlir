// RUN: tosa-custom-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named, tosa-to-linalg), canonicalize, tosa-custom-widen-integer-contractions)" | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named, tosa-to-linalg), canonicalize, tosa-custom-widen-integer-contractions, tosa-custom-generalize, tosa-custom-make-columns-contiguous, tosa-custom-pack-columns{cpu=avx2}, tosa-custom-generalize, tosa-custom-tile-and-vectorize{cpu=avx2})" | FileCheck %s --check-prefix=AVX2
// RUN: tosa-custom-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named, tosa-to-linalg), canonicalize, tosa-custom-widen-integer-contractions, tosa-custom-generalize, tosa-custom-make-columns-contiguous, tosa-custom-pack-columns{cpu=avx512}, tosa-custom-generalize, tosa-custom-tile-and-vectorize{cpu=avx512})" | FileCheck %s --check-prefix=AVX512

// An int8 matmul with zero points: each operand widened to i32 less its
// zero point, then a plain i32 batch_matmul (with its indexing maps, which
// the planner reads), tiled as f32 is: 6 x 16 (AVX2), 8 x 32 (AVX-512).
// CHECK-LABEL: func.func @matmul_zero_points(
// CHECK-DAG:     %[[ZA:.*]] = arith.constant 6 : i32
// CHECK-DAG:     %[[ZB:.*]] = arith.constant -3 : i32
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x64x256xi8>) outs(%{{.*}} : tensor<1x64x256xi32>)
// CHECK:           %[[EA:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:           arith.subi %[[EA]], %[[ZA]] : i32
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x256x128xi8>) outs(%{{.*}} : tensor<1x256x128xi32>)
// CHECK:           %[[EB:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:           arith.subi %[[EB]], %[[ZB]] : i32
// CHECK:         linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<1x64x256xi32>, tensor<1x256x128xi32>)
// CHECK-NOT:     quantized_batch_matmul
// AVX2-LABEL:    func.func @matmul_zero_points(
// AVX2-NOT:      quantized_batch_matmul
// AVX2:          arith.muli {{.*}} : vector<1x1x6x16x1xi32>
// AVX512-LABEL:  func.func @matmul_zero_points(
// AVX512:        arith.muli {{.*}} : vector<1x1x8x32x1xi32>
func.func @matmul_zero_points(%a: tensor<1x64x256xi8>, %b: tensor<1x256x128xi8>) -> tensor<1x64x128xi32> {
  %za = "tosa.const"() <{values = dense<6> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zb = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %za, %zb : (tensor<1x64x256xi8>, tensor<1x256x128xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x64x128xi32>
  return %0 : tensor<1x64x128xi32>
}

// -----

// Without zero points the i8 batch_matmul (i32 result) is widened alone.
// CHECK-LABEL: func.func @matmul_plain(
// CHECK:         linalg.generic
// CHECK:           arith.extsi %{{.*}} : i8 to i32
// CHECK-NOT:       arith.subi
// CHECK:         linalg.generic
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x64x256xi32>, tensor<1x256x128xi32>)
// AVX2-LABEL:    func.func @matmul_plain(
// AVX2:          arith.muli {{.*}} : vector<1x1x6x16x1xi32>
func.func @matmul_plain(%a: tensor<1x64x256xi8>, %b: tensor<1x256x128xi8>) -> tensor<1x64x128xi32> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x64x256xi8>, tensor<1x256x128xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x64x128xi32>
  return %0 : tensor<1x64x128xi32>
}

// -----

// Left as they are: convolutions (generalized with the zero points in their
// body, vectorized by the window plans), an i16 matmul into i48, a float one.
// CHECK-LABEL: func.func @kept(
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwcm_q
// CHECK:         linalg.batch_matmul {{.*}} -> tensor<1x4x8xi48>
// CHECK:         linalg.batch_matmul {{.*}} -> tensor<1x4x8xf32>
// CHECK:         linalg.conv_2d_nhwc_fhwc_q
func.func @kept(%x: tensor<1x8x8x16xi8>, %w: tensor<3x3x16x1xi8>, %a: tensor<1x4x8xi16>, %b: tensor<1x8x8xi16>,
                %f: tensor<1x4x8xf32>, %g: tensor<1x8x8xf32>, %cw: tensor<32x3x3x16xi8>)
    -> (tensor<1x8x8x16xi32>, tensor<1x4x8xi48>, tensor<1x4x8xf32>, tensor<1x8x8x32xi32>) {
  %cb = "tosa.const"() <{values = dense<7> : tensor<32xi32>}> : () -> tensor<32xi32>
  %bias = "tosa.const"() <{values = dense<0> : tensor<16xi32>}> : () -> tensor<16xi32>
  %zx = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zw = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.depthwise_conv2d %x, %w, %bias, %zx, %zw {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<3x3x16x1xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %z16 = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %1 = tosa.matmul %a, %b, %z16, %z16 : (tensor<1x4x8xi16>, tensor<1x8x8xi16>, tensor<1xi16>, tensor<1xi16>) -> tensor<1x4x8xi48>
  %zf = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %2 = tosa.matmul %f, %g, %zf, %zf : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %3 = tosa.conv2d %x, %cw, %cb, %zx, %zw {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<32x3x3x16xi8>, tensor<32xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x32xi32>
  return %0, %1, %2, %3 : tensor<1x8x8x16xi32>, tensor<1x4x8xi48>, tensor<1x4x8xf32>, tensor<1x8x8x32xi32>
}
