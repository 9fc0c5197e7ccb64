// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-wide-transpose-conv-as-conv | FileCheck %s

// A strided i16 transposed convolution (i48 accumulator) becomes a stride-1
// convolution of the input spread by the stride (input zero points between
// rows and columns), padded by kernel - 1 + out_pad, the kernel reversed.
// CHECK-LABEL: func.func @i16_stride_2x3(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x5x3xi16>, %[[W:.*]]: tensor<2x3x3x3xi8>, %[[B:.*]]: tensor<2xi48>
// CHECK:         %[[S0:.*]] = tosa.const_shape {values = dense<[1, 4, 1, 5, 1, 3]> : tensor<6xindex>}
// CHECK:         %[[R0:.*]] = tosa.reshape %[[X]], %[[S0]] : (tensor<1x4x5x3xi16>, !tosa.shape<6>) -> tensor<1x4x1x5x1x3xi16>
// CHECK:         %[[P:.*]] = tosa.const_shape {values = dense<[0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0]> : tensor<12xindex>}
// CHECK:         %[[PAD:.*]] = tosa.pad %[[R0]], %[[P]], %[[IZP:.*]] : (tensor<1x4x1x5x1x3xi16>, !tosa.shape<12>, tensor<1xi16>) -> tensor<1x4x2x5x3x3xi16>
// CHECK:         %[[R1:.*]] = tosa.reshape %[[PAD]], {{.*}} -> tensor<1x8x15x3xi16>
// CHECK:         %[[SL:.*]] = tosa.slice %[[R1]], {{.*}} -> tensor<1x7x13x3xi16>
// CHECK:         %[[REV1:.*]] = tosa.reverse %[[W]] {axis = 1 : i32}
// CHECK:         %[[REV2:.*]] = tosa.reverse %[[REV1]] {axis = 2 : i32}
// CHECK:         %[[CONV:.*]] = tosa.conv2d %[[SL]], %[[REV2]], %[[B]], %[[IZP]], %{{.*}} {acc_type = i48, dilation = array<i64: 1, 1>, pad = array<i64: 1, 3, 2, 4>, stride = array<i64: 1, 1>} : {{.*}} -> tensor<1x9x17x2xi48>
// CHECK-NOT:     tosa.transpose_conv2d
// CHECK:         return %[[CONV]]
func.func @i16_stride_2x3(%x: tensor<1x4x5x3xi16>, %w: tensor<2x3x3x3xi8>, %b: tensor<2xi48>) -> tensor<1x9x17x2xi48> {
  %zi = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %zw = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.transpose_conv2d %x, %w, %b, %zi, %zw {acc_type = i48, out_pad = array<i64: -1, 1, 0, 2>, stride = array<i64: 2, 3>} : (tensor<1x4x5x3xi16>, tensor<2x3x3x3xi8>, tensor<2xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x9x17x2xi48>
  return %0 : tensor<1x9x17x2xi48>
}

// -----

// i8 (the stock decomposition lowers it right) and a stride of 1 are left alone.
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-2: tosa.transpose_conv2d
// CHECK-NOT:     tosa.conv2d
func.func @left_alone(%x: tensor<1x4x5x3xi8>, %w: tensor<2x3x3x3xi8>, %b: tensor<2xi32>, %y: tensor<1x4x5x3xi16>, %v: tensor<2xi48>) -> (tensor<1x9x11x2xi32>, tensor<1x6x7x2xi48>) {
  %zi = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zy = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %0 = tosa.transpose_conv2d %x, %w, %b, %zi, %zi {acc_type = i32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x5x3xi8>, tensor<2x3x3x3xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x9x11x2xi32>
  %1 = tosa.transpose_conv2d %y, %w, %v, %zy, %zi {acc_type = i48, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x5x3xi16>, tensor<2x3x3x3xi8>, tensor<2xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x6x7x2xi48>
  return %0, %1 : tensor<1x9x11x2xi32>, tensor<1x6x7x2xi48>
}
