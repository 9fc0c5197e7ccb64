// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-fold-broadcast-chains | FileCheck %s

// A contraction tile's A operand as the preparation leaves it: one element
// per row, broadcast across the row's lanes through a transpose, shape casts
// and a unit extract. It is one broadcast of the rows.
// CHECK-LABEL: func.func @contraction_operand(
// CHECK-SAME:    %[[A:.*]]: vector<8x1xf32>
// CHECK-NEXT:    %[[B:.*]] = vector.broadcast %[[A]] : vector<8x1xf32> to vector<8x32xf32>
// CHECK-NEXT:    return %[[B]]
func.func @contraction_operand(%a: vector<8x1xf32>) -> vector<8x32xf32> {
  %0 = vector.broadcast %a : vector<8x1xf32> to vector<1x8x1xf32>
  %1 = vector.broadcast %0 : vector<1x8x1xf32> to vector<1x32x1x8x1xf32>
  %2 = vector.transpose %1, [2, 0, 3, 1, 4] : vector<1x32x1x8x1xf32> to vector<1x1x8x32x1xf32>
  %3 = vector.shape_cast %2 : vector<1x1x8x32x1xf32> to vector<1x1x8x32xf32>
  %4 = vector.extract %3[0, 0] : vector<8x32xf32> from vector<1x1x8x32xf32>
  return %4 : vector<8x32xf32>
}

// -----

// The B row: broadcast over the rows, through unit dims. The source is cast
// to the rank of the result first (its dims, or 1 where the result repeats it).
// CHECK-LABEL: func.func @row_operand(
// CHECK-SAME:    %[[R:.*]]: vector<32xf32>
// CHECK-NEXT:    %[[C:.*]] = vector.shape_cast %[[R]] : vector<32xf32> to vector<1x32xf32>
// CHECK-NEXT:    %[[B:.*]] = vector.broadcast %[[C]] : vector<1x32xf32> to vector<8x32xf32>
// CHECK-NEXT:    return %[[B]]
func.func @row_operand(%r: vector<32xf32>) -> vector<8x32xf32> {
  %0 = vector.broadcast %r : vector<32xf32> to vector<1x1x1x32xf32>
  %1 = vector.broadcast %0 : vector<1x1x1x32xf32> to vector<8x1x1x1x32xf32>
  %2 = vector.shape_cast %1 : vector<8x1x1x1x32xf32> to vector<8x32xf32>
  return %2 : vector<8x32xf32>
}

// -----

// A scalar through a chain is a splat.
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME:    %[[S:.*]]: f32
// CHECK-NEXT:    %[[B:.*]] = vector.broadcast %[[S]] : f32 to vector<4x2xf32>
// CHECK-NEXT:    return %[[B]]
func.func @scalar(%s: f32) -> vector<4x2xf32> {
  %0 = vector.broadcast %s : f32 to vector<2x4xf32>
  %1 = vector.transpose %0, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
  return %1 : vector<4x2xf32>
}

// -----

// A transpose that moves elements is no broadcast: kept.
// CHECK-LABEL: func.func @real_transpose(
// CHECK-NEXT:    vector.broadcast
// CHECK-NEXT:    vector.transpose
// CHECK-NEXT:    return
func.func @real_transpose(%a: vector<2x3xf32>) -> vector<3x2x4xf32> {
  %0 = vector.broadcast %a : vector<2x3xf32> to vector<4x2x3xf32>
  %1 = vector.transpose %0, [2, 1, 0] : vector<4x2x3xf32> to vector<3x2x4xf32>
  return %1 : vector<3x2x4xf32>
}

// -----

// A chain whose middle has users of its own: the middle is the end of a
// chain too, and each is folded from its own source.
// CHECK-LABEL: func.func @shared(
// CHECK-NEXT:    %[[C:.*]] = vector.shape_cast %arg0 : vector<4x1xf32> to vector<1x4x1xf32>
// CHECK-NEXT:    %[[M:.*]] = vector.broadcast %[[C]] : vector<1x4x1xf32> to vector<8x4x1xf32>
// CHECK-NEXT:    %[[B:.*]] = vector.broadcast %arg0 : vector<4x1xf32> to vector<4x8xf32>
// CHECK-NEXT:    return %[[M]], %[[B]]
func.func @shared(%a: vector<4x1xf32>) -> (vector<8x4x1xf32>, vector<4x8xf32>) {
  %0 = vector.broadcast %a : vector<4x1xf32> to vector<8x4x1xf32>
  %1 = vector.transpose %0, [0, 1, 2] : vector<8x4x1xf32> to vector<8x4x1xf32>
  %2 = vector.transpose %1, [1, 0, 2] : vector<8x4x1xf32> to vector<4x8x1xf32>
  %3 = vector.shape_cast %2 : vector<4x8x1xf32> to vector<4x8xf32>
  return %1, %3 : vector<8x4x1xf32>, vector<4x8xf32>
}

// -----

// A unit extract at a dynamic position is not a shape cast: the chain ends there.
// CHECK-LABEL: func.func @dynamic_extract(
// CHECK-NEXT:    vector.broadcast
// CHECK-NEXT:    vector.extract
// CHECK-NEXT:    return
func.func @dynamic_extract(%a: vector<4xf32>, %i: index) -> vector<4xf32> {
  %0 = vector.broadcast %a : vector<4xf32> to vector<1x4xf32>
  %1 = vector.extract %0[%i] : vector<4xf32> from vector<1x4xf32>
  return %1 : vector<4xf32>
}
