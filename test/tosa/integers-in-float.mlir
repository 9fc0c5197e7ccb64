// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-integers-in-float | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-integers-in-float \
// RUN:   --tosa-attach-target="profiles=pro_fp" --tosa-validate="strict-op-spec-alignment=true" \
// RUN:   -verify-diagnostics -o /dev/null
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-integers-in-float="profiles=pro_int,pro_fp" \
// RUN:   | FileCheck %s --check-prefix=INT

// Input ids reshaped for the embedding gather: pro_fp reshapes no i32. The
// ids enter as f32 (the argument marked with the range f32 holds exactly),
// move, and leave as i32 for the gather's indices. The second RUN line
// validates every case strictly for pro_fp alone; with pro_int in the target
// nothing changes (INT).
// CHECK-LABEL: func.func @ids(
// CHECK-SAME:    %[[IDS:.*]]: tensor<2x4xi32> {tosa_custom.range = array<i64: -16777216, 16777216>}
// CHECK:         %[[F:.*]] = tosa.cast %[[IDS]] : (tensor<2x4xi32>) -> tensor<2x4xf32>
// CHECK:         %[[R:.*]] = tosa.reshape %[[F]], %{{.*}} : (tensor<2x4xf32>, !tosa.shape<2>) -> tensor<1x8xf32>
// CHECK:         %[[I:.*]] = tosa.cast %[[R]] : (tensor<1x8xf32>) -> tensor<1x8xi32>
// CHECK:         tosa.gather %{{.*}}, %[[I]] : (tensor<1x10x3xf32>, tensor<1x8xi32>)
// INT-LABEL:   func.func @ids(
// INT-NOT:       tosa_custom.range
// INT:           tosa.reshape %{{.*}} : (tensor<2x4xi32>, !tosa.shape<2>) -> tensor<1x8xi32>
func.func @ids(%ids: tensor<2x4xi32>, %t: tensor<1x10x3xf32>) -> tensor<1x8x3xf32> {
  %s = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %ids, %s : (tensor<2x4xi32>, !tosa.shape<2>) -> tensor<1x8xi32>
  %g = tosa.gather %t, %r : (tensor<1x10x3xf32>, tensor<1x8xi32>) -> tensor<1x8x3xf32>
  return %g : tensor<1x8x3xf32>
}

// -----

// A causal mask: positions from constants, a difference, a comparison, a
// select of the float scores. Constants become f32 constants; no argument
// is involved, so none is marked.
// CHECK-LABEL: func.func @causal_mask(
// CHECK-NOT:     tosa_custom.range
// CHECK:         "tosa.const"() <{values = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>}>
// CHECK:         tosa.sub {{.*}} -> tensor<4x4xf32>
// CHECK:         tosa.greater_equal {{.*}} : (tensor<4x4xf32>, tensor<1x1xf32>) -> tensor<4x4xi1>
// CHECK-NOT:     i32
func.func @causal_mask(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = "tosa.const"() <{values = dense<[0, 1, 2, 3]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s1 = tosa.const_shape {values = dense<[4, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s2 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %s1 : (tensor<4xi32>, !tosa.shape<2>) -> tensor<4x1xi32>
  %c = tosa.reshape %a, %s2 : (tensor<4xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
  %d = tosa.sub %r, %c : (tensor<4x1xi32>, tensor<1x4xi32>) -> tensor<4x4xi32>
  %z = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %m = tosa.greater_equal %d, %z : (tensor<4x4xi32>, tensor<1x1xi32>) -> tensor<4x4xi1>
  %inf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %y = tosa.select %m, %x, %inf : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<1x1xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// An attention mask: an int argument cast to bool (pro_fp casts no integer
// to bool) is `x != 0` on its f32 value; a bool gathered as i8 (torch-mlir's
// advanced indexing) is a gather of 1.0 and 0.0, compared back.
// CHECK-LABEL: func.func @mask(
// CHECK:         %[[F:.*]] = tosa.cast %arg0 : (tensor<1x4xi32>) -> tensor<1x4xf32>
// CHECK:         %[[EQ:.*]] = tosa.equal %[[F]], %{{.*}} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xi1>
// CHECK:         %[[B:.*]] = tosa.logical_not %[[EQ]]
// CHECK:         %[[ONES:.*]] = tosa.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x4x1xi1>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x4x1xf32>
// CHECK:         %[[G:.*]] = tosa.gather %[[ONES]], %{{.*}} : (tensor<1x4x1xf32>, tensor<1x4xi32>) -> tensor<1x4x1xf32>
// CHECK:         %[[E:.*]] = tosa.equal %[[G]], %{{.*}} : (tensor<1x4x1xf32>, tensor<1x1x1xf32>) -> tensor<1x4x1xi1>
// CHECK:         tosa.logical_not %[[E]]
func.func @mask(%m: tensor<1x4xi32>, %x: tensor<1x4xf32>) -> (tensor<1x4xi1>, tensor<1x4x1xi1>) {
  %b = tosa.cast %m : (tensor<1x4xi32>) -> tensor<1x4xi1>
  %s = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %b, %s : (tensor<1x4xi1>, !tosa.shape<3>) -> tensor<1x4x1xi1>
  %i8 = tosa.cast %r : (tensor<1x4x1xi1>) -> tensor<1x4x1xi8>
  %idx = "tosa.const"() <{values = dense<[[3, 2, 1, 0]]> : tensor<1x4xi32>}> : () -> tensor<1x4xi32>
  %g = tosa.gather %i8, %idx : (tensor<1x4x1xi8>, tensor<1x4xi32>) -> tensor<1x4x1xi8>
  %back = tosa.cast %g : (tensor<1x4x1xi8>) -> tensor<1x4x1xi1>
  return %b, %back : tensor<1x4xi1>, tensor<1x4x1xi1>
}

// -----

// Left as they are: i32 arithmetic pro_fp has (add, mul) that only feeds a
// gather's indices needs nothing; a sum whose terms may pass 2^24 is not
// exact in f32; an integer-only function is pro_int anyway.
// CHECK-LABEL: func.func @pro_fp_arithmetic(
// CHECK-NOT:     tosa.cast
// CHECK:         tosa.add {{.*}} -> tensor<1x4xi32>
// CHECK-LABEL: func.func @big_sum(
// CHECK:         tosa.reduce_sum {{.*}} -> tensor<1x1xi32>
// CHECK-LABEL: func.func @integers_only(
// CHECK:         tosa.reshape {{.*}} -> tensor<4xi32>
func.func @pro_fp_arithmetic(%t: tensor<1x10x3xf32>) -> tensor<1x4x3xf32> {
  %a = "tosa.const"() <{values = dense<[[0, 1, 2, 3]]> : tensor<1x4xi32>}> : () -> tensor<1x4xi32>
  %one = "tosa.const"() <{values = dense<1> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %p = tosa.add %a, %one : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
  %g = tosa.gather %t, %p : (tensor<1x10x3xf32>, tensor<1x4xi32>) -> tensor<1x4x3xf32>
  return %g : tensor<1x4x3xf32>
}
func.func @big_sum(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x1xi32>) {
  %a = "tosa.const"() <{values = dense<[[16777216, 16777216, -16777216, 1]]> : tensor<1x4xi32>}> : () -> tensor<1x4xi32>
  // expected-error@+1 {{'tosa.reduce_sum' op illegal: requires any of [pro_int]}}
  %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<1x4xi32>) -> tensor<1x1xi32>
  return %x, %s : tensor<1x4xf32>, tensor<1x1xi32>
}
func.func @integers_only(%a: tensor<2x2xi32>) -> tensor<4xi32> {
  %s = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  // expected-error@+1 {{'tosa.reshape' op illegal: requires any of [pro_int]}}
  %r = tosa.reshape %a, %s : (tensor<2x2xi32>, !tosa.shape<1>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// torch.gather's linear index: the argument's index plus its row times the
// row length. Within 2^24 the sum could pass 2^24; the argument is assumed
// within 2^20 instead, which the sum cannot leave, and marked so.
// CHECK-LABEL: func.func @linear_index(
// CHECK-SAME:    {tosa_custom.range = array<i64: -1048576, 1048576>}
// CHECK:         tosa.reduce_sum {{.*}} -> tensor<4x1xf32>
func.func @linear_index(%x: tensor<1x6x1xf32>, %idx: tensor<2x2xi32>) -> tensor<1x4x1xf32> {
  %rows = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]]]> : tensor<2x2x1xi32>}> : () -> tensor<2x2x1xi32>
  %s3 = tosa.const_shape {values = dense<[2, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %idx, %s3 : (tensor<2x2xi32>, !tosa.shape<3>) -> tensor<2x2x1xi32>
  %c = tosa.concat %rows, %r {axis = 2 : i32} : (tensor<2x2x1xi32>, tensor<2x2x1xi32>) -> tensor<2x2x2xi32>
  %s2 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %flat = tosa.reshape %c, %s2 : (tensor<2x2x2xi32>, !tosa.shape<2>) -> tensor<4x2xi32>
  %strides = "tosa.const"() <{values = dense<[[3, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %flat, %strides, %shift : (tensor<4x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<4x2xi32>
  %sum = tosa.reduce_sum %m {axis = 1 : i32} : (tensor<4x2xi32>) -> tensor<4x1xi32>
  %s1 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %i = tosa.reshape %sum, %s1 : (tensor<4x1xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
  %g = tosa.gather %x, %i : (tensor<1x6x1xf32>, tensor<1x4xi32>) -> tensor<1x4x1xf32>
  return %g : tensor<1x4x1xf32>
}

// -----

// topk's selection by argmax over a mask: the argmax reads the f32 mask,
// its index enters as f32 for the select, and leaves as i32 for the gather.
// CHECK-LABEL: func.func @argmax_of_mask(
// CHECK:         tosa.argmax %{{.*}} : (tensor<1x4x1xf32>) -> tensor<1x1xi32>
// CHECK:         tosa.select {{.*}} -> tensor<1x1xf32>
func.func @argmax_of_mask(%x: tensor<1x4x1xf32>, %b: tensor<1x4x1xi1>, %c: tensor<1x1xi1>) -> tensor<1x1x1xf32> {
  %m = tosa.cast %b : (tensor<1x4x1xi1>) -> tensor<1x4x1xi8>
  %a = tosa.argmax %m {axis = 1 : i32} : (tensor<1x4x1xi8>) -> tensor<1x1xi32>
  %z = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %s = tosa.select %c, %a, %z : (tensor<1x1xi1>, tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x1xi32>
  %g = tosa.gather %x, %s : (tensor<1x4x1xf32>, tensor<1x1xi32>) -> tensor<1x1x1xf32>
  return %g : tensor<1x1x1xf32>
}
