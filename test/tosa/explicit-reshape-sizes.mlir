// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-explicit-reshape-sizes | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-explicit-reshape-sizes \
// RUN:   --tosa-attach-target="profiles=pro_fp extensions=dynamic,shape specification_version=1.1.draft" \
// RUN:   --tosa-validate="strict-op-spec-alignment=true" -o /dev/null

// A batch of ? rows folded into one: the one ? dim moves, its size is the inferred one.
// CHECK-LABEL: func.func @one_dynamic_dim(
// CHECK-SAME:    %[[X:.*]]: tensor<?x16xf32>
// CHECK-NOT:     -1
// CHECK:         %[[D:.*]] = tosa.dim %[[X]] {axis = 0 : i32}
// CHECK:         %[[S:.*]] = tosa.concat_shape %{{.*}}, %[[D]]
// CHECK:         %[[T:.*]] = tosa.concat_shape %[[S]], %{{.*}} : (!tosa.shape<2>, !tosa.shape<1>) -> !tosa.shape<3>
// CHECK:         tosa.reshape %[[X]], %[[T]]
func.func @one_dynamic_dim(%x: tensor<?x16xf32>) -> tensor<1x?x16xf32> {
  %s = tosa.const_shape {values = dense<[1, -1, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %x, %s : (tensor<?x16xf32>, !tosa.shape<3>) -> tensor<1x?x16xf32>
  return %r : tensor<1x?x16xf32>
}

// -----

// Two ? dims merged: the element count over the known sizes.
// CHECK-LABEL: func.func @merged(
// CHECK-NOT:     -1
// CHECK:         tosa.dim %{{.*}} {axis = 0 : i32}
// CHECK:         tosa.mul_shape
// CHECK:         tosa.dim %{{.*}} {axis = 1 : i32}
// CHECK:         tosa.mul_shape
// CHECK:         tosa.div_floor_shape
// CHECK:         tosa.reshape
func.func @merged(%x: tensor<?x?x4xf32>) -> tensor<?x4xf32> {
  %s = tosa.const_shape {values = dense<[-1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %s : (tensor<?x?x4xf32>, !tosa.shape<2>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// A static input: the size is a constant.
// CHECK-LABEL: func.func @static(
// CHECK:         tosa.const_shape {values = dense<[2, 12]> : tensor<2xindex>}
func.func @static(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %s = tosa.const_shape {values = dense<[2, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %s : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}
