// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-drop-padding-taps | FileCheck %s

// DeepLabV3's ASPP: a 3x3 convolution of dilation 12, padded by 12, on a 4x4
// map reads the input through its centre tap only: the kernel is cut to it,
// and the padding to none. The output's size is unchanged.
// CHECK-LABEL: func.func @dilated_on_a_small_map(
// CHECK:         %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}5.000000e+00]]], {{\[\[\[}}1.400000e+01]]]]> : tensor<2x1x1x1xf32>}>
// CHECK:         tosa.conv2d %arg0, %[[W]], %{{.*}}, %{{.*}}, %{{.*}} {acc_type = f32, dilation = array<i64: 12, 12>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
func.func @dilated_on_a_small_map(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]], [[[10.0], [11.0], [12.0]], [[13.0], [14.0], [15.0]], [[16.0], [17.0], [18.0]]]]> : tensor<2x3x3x1xf32>}> : () -> tensor<2x3x3x1xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 12, 12>, pad = array<i64: 12, 12, 12, 12>, stride = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<2x3x3x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}

// -----

// A depthwise 5x5 of dilation 2 (padded by 4) on 4 rows and 6 columns: the
// outer rows (offsets -4 and +4) read only padding, the outer columns do not
// (column 0 + 4 is inside): 3x5 taps, padding 2 above and below.
// CHECK-LABEL: func.func @depthwise_rows_only(
// CHECK:         %[[W:.*]] = "tosa.const"() {{.*}} : tensor<3x5x1x1xf32>}>
// CHECK:         tosa.depthwise_conv2d %arg0, %[[W]], {{.*}} pad = array<i64: 2, 2, 4, 4>{{.*}} -> tensor<1x4x6x1xf32>
func.func @depthwise_rows_only(%x: tensor<1x4x6x1xf32>) -> tensor<1x4x6x1xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]]], [[[6.0]], [[7.0]], [[8.0]], [[9.0]], [[10.0]]], [[[11.0]], [[12.0]], [[13.0]], [[14.0]], [[15.0]]], [[[16.0]], [[17.0]], [[18.0]], [[19.0]], [[20.0]]], [[[21.0]], [[22.0]], [[23.0]], [[24.0]], [[25.0]]]]> : tensor<5x5x1x1xf32>}> : () -> tensor<5x5x1x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 2, 2>, pad = array<i64: 4, 4, 4, 4>, stride = array<i64: 1, 1>} : (tensor<1x4x6x1xf32>, tensor<5x5x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6x1xf32>
  return %0 : tensor<1x4x6x1xf32>
}

// -----

// An integer convolution pads with its input zero point, which it subtracts:
// a dead tap adds 0 whatever its weight.
// CHECK-LABEL: func.func @int8(
// CHECK:         tosa.conv2d {{.*}} pad = array<i64: 0, 0, 0, 0>{{.*}} : (tensor<1x2x2x1xi8>, tensor<1x1x1x1xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x1xi32>
func.func @int8(%x: tensor<1x2x2x1xi8>) -> tensor<1x2x2x1xi32> {
  %w = "tosa.const"() <{values = dense<[[[[1], [2], [3]], [[4], [5], [6]], [[7], [8], [9]]]]> : tensor<1x3x3x1xi8>}> : () -> tensor<1x3x3x1xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %izp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 4, 4>, pad = array<i64: 4, 4, 4, 4>, stride = array<i64: 1, 1>} : (tensor<1x2x2x1xi8>, tensor<1x3x3x1xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x1xi32>
  return %0 : tensor<1x2x2x1xi32>
}

// -----

// Kept: an infinite weight in a dead tap (inf x 0 is NaN), a kernel every tap
// of which reads the input, and a kernel that is not a constant.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-3: pad = array<i64: {{12, 12, 12, 12|1, 1, 1, 1}}>
func.func @kept(%x: tensor<1x4x4x1xf32>, %v: tensor<1x3x3x1xf32>) -> (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) {
  %inf = "tosa.const"() <{values = dense<[[[[0x7F800000], [1.0], [1.0]], [[1.0], [1.0], [1.0]], [[1.0], [1.0], [1.0]]]]> : tensor<1x3x3x1xf32>}> : () -> tensor<1x3x3x1xf32>
  %w = "tosa.const"() <{values = dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>}> : () -> tensor<1x3x3x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %inf, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 12, 12>, pad = array<i64: 12, 12, 12, 12>, stride = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<1x3x3x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x1xf32>
  %1 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<1x3x3x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x1xf32>
  %2 = tosa.conv2d %x, %v, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 12, 12>, pad = array<i64: 12, 12, 12, 12>, stride = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<1x3x3x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x1xf32>
  return %0, %1, %2 : tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>
}
