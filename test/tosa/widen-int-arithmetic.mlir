// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-widen-int-arithmetic | FileCheck %s

// i8/i16 add and sub in i32, truncated back: the same wraparound.
// CHECK-LABEL: func.func @add_sub(
// CHECK-SAME:    %[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>, %[[C:.*]]: tensor<4xi16>
// CHECK:         %[[A32:.*]] = tosa.cast %[[A]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK:         %[[B32:.*]] = tosa.cast %[[B]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK:         %[[S:.*]] = tosa.add %[[A32]], %[[B32]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK:         %[[S8:.*]] = tosa.cast %[[S]] : (tensor<4xi32>) -> tensor<4xi8>
// CHECK:         %[[D:.*]] = tosa.sub %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK:         %[[D16:.*]] = tosa.cast %[[D]] : (tensor<4xi32>) -> tensor<4xi16>
// CHECK:         return %[[S8]], %[[D16]]
func.func @add_sub(%a: tensor<4xi8>, %b: tensor<4xi8>, %c: tensor<4xi16>) -> (tensor<4xi8>, tensor<4xi16>) {
  %0 = tosa.add %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %1 = tosa.sub %c, %c : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  return %0, %1 : tensor<4xi8>, tensor<4xi16>
}

// -----

// i8 mul: TOSA multiplies i8 into i32; the product is truncated back.
// CHECK-LABEL: func.func @mul_i8(
// CHECK:         %[[M:.*]] = tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xi8>, tensor<4xi8>, tensor<1xi8>) -> tensor<4xi32>
// CHECK:         %[[M8:.*]] = tosa.cast %[[M]] : (tensor<4xi32>) -> tensor<4xi8>
// CHECK:         return %[[M8]]
func.func @mul_i8(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %s : (tensor<4xi8>, tensor<4xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// bool mul is logical_and, bool equal is not(xor).
// CHECK-LABEL: func.func @bools(
// CHECK-SAME:    %[[P:.*]]: tensor<4xi1>, %[[Q:.*]]: tensor<4xi1>
// CHECK:         %[[AND:.*]] = tosa.logical_and %[[P]], %[[Q]]
// CHECK:         %[[X:.*]] = tosa.logical_xor %[[P]], %[[Q]]
// CHECK:         %[[EQ:.*]] = tosa.logical_not %[[X]]
// CHECK:         return %[[AND]], %[[EQ]]
func.func @bools(%p: tensor<4xi1>, %q: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>) {
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %p, %q, %s : (tensor<4xi1>, tensor<4xi1>, tensor<1xi8>) -> tensor<4xi1>
  %1 = tosa.equal %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// i32 arithmetic is TOSA's own: untouched.
// CHECK-LABEL: func.func @i32(
// CHECK-NEXT:    tosa.add %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NOT:     tosa.cast
func.func @i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tosa.add %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// i8/i16 comparisons on operands sign-extended to i32 (TOSA 1.0 compares only i32): the same answers.
// CHECK-LABEL: func.func @comparisons(
// CHECK-SAME:    %[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>, %[[C:.*]]: tensor<4xi16>
// CHECK:         %[[A32:.*]] = tosa.cast %[[A]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK:         %[[B32:.*]] = tosa.cast %[[B]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK:         %[[E:.*]] = tosa.equal %[[A32]], %[[B32]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK:         tosa.greater %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK:         tosa.greater_equal %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK:         tosa.equal %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
func.func @comparisons(%a: tensor<4xi8>, %b: tensor<4xi8>, %c: tensor<4xi16>, %d: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = tosa.equal %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  %1 = tosa.greater %c, %c : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi1>
  %2 = tosa.greater_equal %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  %3 = tosa.equal %d, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
