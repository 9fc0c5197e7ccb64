// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-lower-shape-ops | FileCheck %s

// Two `?` entries (CONTRACT.md 15.3): tosa.dim + tosa.const_shape +
// tosa.concat_shape become index values and one tensor.reshape; the shape ops go.
// CHECK-LABEL: func.func @dims_and_constants(
// CHECK-SAME:    %[[A:.*]]: tensor<?x?x8xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[A]], %[[C0]]
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[A]], %[[C1]]
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[S:.*]] = tensor.from_elements %[[D0]], %[[D1]], %[[C2]], %[[C4]] : tensor<4xindex>
// CHECK:         %[[R:.*]] = tensor.reshape %[[A]](%[[S]]) : (tensor<?x?x8xf32>, tensor<4xindex>) -> tensor<?x?x2x4xf32>
// CHECK-NOT:     tosa.
// CHECK:         return %[[R]]
func.func @dims_and_constants(%a: tensor<?x?x8xf32>) -> tensor<?x?x2x4xf32> {
  %d0 = tosa.dim %a {axis = 0 : i32} : (tensor<?x?x8xf32>) -> !tosa.shape<1>
  %d1 = tosa.dim %a {axis = 1 : i32} : (tensor<?x?x8xf32>) -> !tosa.shape<1>
  %c = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s = tosa.concat_shape %d0, %d1, %c : (!tosa.shape<1>, !tosa.shape<1>, !tosa.shape<2>) -> !tosa.shape<4>
  %r = tosa.reshape %a, %s : (tensor<?x?x8xf32>, !tosa.shape<4>) -> tensor<?x?x2x4xf32>
  return %r : tensor<?x?x2x4xf32>
}

// -----

// A -1 beside a dim: the element count over the product of the other sizes;
// a static dim read by tosa.dim is a constant.
// CHECK-LABEL: func.func @inferred(
// CHECK-SAME:    %[[A:.*]]: tensor<?x?x6xf32>
// CHECK:         %[[N0:.*]] = tensor.dim %[[A]], %c0
// CHECK:         %[[M0:.*]] = arith.muli %c1{{.*}}, %[[N0]]
// CHECK:         %[[N1:.*]] = tensor.dim %[[A]], %c1
// CHECK:         %[[M1:.*]] = arith.muli %[[M0]], %[[N1]]
// CHECK:         %[[COUNT:.*]] = arith.muli %[[M1]], %c6
// CHECK:         %[[KNOWN:.*]] = arith.muli {{.*}}, %c6
// CHECK:         %[[INFERRED:.*]] = arith.divsi %[[COUNT]], %[[KNOWN]] : index
// CHECK:         tensor.from_elements %c6{{.*}}, %[[INFERRED]] : tensor<2xindex>
// CHECK:         tensor.reshape %[[A]]
func.func @inferred(%a: tensor<?x?x6xf32>) -> tensor<6x?xf32> {
  %d2 = tosa.dim %a {axis = 2 : i32} : (tensor<?x?x6xf32>) -> !tosa.shape<1>
  %c = tosa.const_shape {values = dense<[-1]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %s = tosa.concat_shape %d2, %c : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %r = tosa.reshape %a, %s : (tensor<?x?x6xf32>, !tosa.shape<2>) -> tensor<6x?xf32>
  return %r : tensor<6x?xf32>
}

// -----

// Shape arithmetic: a merged dim as the product of two.
// CHECK-LABEL: func.func @merged(
// CHECK:         %[[D0:.*]] = tensor.dim %arg0, %c0
// CHECK:         %[[D1:.*]] = tensor.dim %arg0, %c1
// CHECK:         %[[P:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK:         tensor.from_elements %[[P]], %c4{{.*}} : tensor<2xindex>
// CHECK-NOT:     tosa.mul_shape
func.func @merged(%a: tensor<?x?x4xf32>) -> tensor<?x4xf32> {
  %d0 = tosa.dim %a {axis = 0 : i32} : (tensor<?x?x4xf32>) -> !tosa.shape<1>
  %d1 = tosa.dim %a {axis = 1 : i32} : (tensor<?x?x4xf32>) -> !tosa.shape<1>
  %m = tosa.mul_shape %d0, %d1 : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %c = tosa.const_shape {values = dense<4> : tensor<1xindex>} : () -> !tosa.shape<1>
  %s = tosa.concat_shape %m, %c : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %r = tosa.reshape %a, %s : (tensor<?x?x4xf32>, !tosa.shape<2>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// A constant shape (one -1 at most) is left to tosa-to-tensor.
// CHECK-LABEL: func.func @constant_shape(
// CHECK:         tosa.const_shape
// CHECK:         tosa.reshape
// CHECK-NOT:     tensor.reshape
func.func @constant_shape(%a: tensor<?x8xf32>) -> tensor<?x2x4xf32> {
  %c = tosa.const_shape {values = dense<[-1, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %a, %c : (tensor<?x8xf32>, !tosa.shape<3>) -> tensor<?x2x4xf32>
  return %r : tensor<?x2x4xf32>
}

// -----

// A shape from an op the pass does not compute: refused on the reshape.
func.func @exp2(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c = tosa.const_shape {values = dense<8> : tensor<1xindex>} : () -> !tosa.shape<1>
  %d = tosa.dim %a {axis = 0 : i32} : (tensor<?x8xf32>) -> !tosa.shape<1>
  %e = tosa.exp2_shape %d : (!tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %e, %c : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  // expected-error @below {{the shape of this reshape is computed by tosa.exp2_shape, which the runtime does not lower}}
  %r = tosa.reshape %a, %s : (tensor<?x8xf32>, !tosa.shape<2>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// A slice to a run-time end (its size list computed from a dim): a
// tensor.extract_slice by index values; the type kept by a cast.
// CHECK-LABEL: func.func @slice_to_dim(
// CHECK-SAME:    %[[X:.*]]: tensor<2x?x96xf32>
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %c1
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[X]][0, 0, 32] [2, %[[D]], 32] [1, 1, 1] : tensor<2x?x96xf32> to tensor<2x?x32xf32>
// CHECK:         return %[[S]]
// CHECK-NOT:     tosa.
func.func @slice_to_dim(%x: tensor<2x?x96xf32>) -> tensor<2x?x32xf32> {
  %start = tosa.const_shape {values = dense<[0, 0, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %two = tosa.const_shape {values = dense<2> : tensor<1xindex>} : () -> !tosa.shape<1>
  %width = tosa.const_shape {values = dense<32> : tensor<1xindex>} : () -> !tosa.shape<1>
  %d = tosa.dim %x {axis = 1 : i32} : (tensor<2x?x96xf32>) -> !tosa.shape<1>
  %s0 = tosa.concat_shape %two, %d : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %size = tosa.concat_shape %s0, %width : (!tosa.shape<2>, !tosa.shape<1>) -> !tosa.shape<3>
  %r = tosa.slice %x, %start, %size : (tensor<2x?x96xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x?x32xf32>
  return %r : tensor<2x?x32xf32>
}

// -----

// A size counted at run time (a mean's divisor): a tensor<1xi32> of ones
// tiled by a dim, then summed. The tile becomes a linalg.generic reading
// index 0 of its size-1 input into an empty tensor of the dim's size.
// CHECK-LABEL: func.func @tile_by_dim(
// CHECK:         %[[D:.*]] = tensor.dim %arg0, %c1
// CHECK:         %[[N:.*]] = arith.muli %{{.*}}, %[[D]]
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK:         linalg.generic {indexing_maps = [#[[ZERO:.*]], #[[ID:.*]]], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<1xi32>) outs(%[[E]] : tensor<?xi32>)
// CHECK-NOT:     tosa.tile
func.func @tile_by_dim(%x: tensor<2x?x16xf32>) -> tensor<1xi32> {
  %one = "tosa.const"() <{values = dense<1> : tensor<1xi32>}> : () -> tensor<1xi32>
  %d = tosa.dim %x {axis = 1 : i32} : (tensor<2x?x16xf32>) -> !tosa.shape<1>
  %t = tosa.tile %one, %d : (tensor<1xi32>, !tosa.shape<1>) -> tensor<?xi32>
  %s = tosa.reduce_sum %t {axis = 0 : i32} : (tensor<?xi32>) -> tensor<1xi32>
  return %s : tensor<1xi32>
}

// -----

// A [1, T] row tiled by the batch (BERT's token-type ids): the ? axis is
// read as it is, the size-1 axis at 0.
// CHECK-LABEL: func.func @tile_row_by_batch(
// CHECK-DAG:     %[[T:.*]] = tensor.dim %arg0, %c1
// CHECK-DAG:     %[[B:.*]] = tensor.dim %arg1, %c0
// CHECK:         tensor.empty(%{{.*}}, %[[T]]) : tensor<?x?xi64>
// CHECK:         linalg.generic
// CHECK-NOT:     tosa.tile
func.func @tile_row_by_batch(%x: tensor<1x?xi64>, %y: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %b = tosa.dim %y {axis = 0 : i32} : (tensor<?x?xi64>) -> !tosa.shape<1>
  %one = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  %m = tosa.concat_shape %b, %one : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %t = tosa.tile %x, %m : (tensor<1x?xi64>, !tosa.shape<2>) -> tensor<?x?xi64>
  return %t : tensor<?x?xi64>
}

// -----

// Tiling along a ? axis reads index i mod a run-time size, which no affine
// map says: an error on the op, naming what the runtime does not lower.
func.func @tile_of_dynamic(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %d = tosa.dim %y {axis = 0 : i32} : (tensor<?xf32>) -> !tosa.shape<1>
  // expected-error @below {{the shape of this tile is computed by a tile along a ? dim}}
  %t = tosa.tile %x, %d : (tensor<?xf32>, !tosa.shape<1>) -> tensor<?xf32>
  return %t : tensor<?xf32>
}

// -----

// GQA's repeat_kv over a dynamic batch and length: a constant tile of an
// input with two `?` dims, which tosa-to-linalg would reshape with two -1s,
// becomes the linalg.generic too (the ? axes read as they are, the size-1
// axis at 0).
// CHECK-LABEL: func.func @tile_of_two_dynamic_dims(
// CHECK-DAG:     %[[B:.*]] = tensor.dim %arg0, %c0
// CHECK-DAG:     %[[T:.*]] = tensor.dim %arg0, %c3
// CHECK:         tensor.empty(%[[B]], %[[T]]) : tensor<?x2x2x?x8xf32>
// CHECK:         linalg.generic
// CHECK-NOT:     tosa.tile
func.func @tile_of_two_dynamic_dims(%x: tensor<?x2x1x?x8xf32>) -> tensor<?x2x2x?x8xf32> {
  %m = tosa.const_shape {values = dense<[1, 1, 2, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %t = tosa.tile %x, %m : (tensor<?x2x1x?x8xf32>, !tosa.shape<5>) -> tensor<?x2x2x?x8xf32>
  return %t : tensor<?x2x2x?x8xf32>
}
