// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-narrow-i64-values | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-narrow-i64-values \
// RUN:   --tosa-attach-target="profiles=pro_int,pro_fp" --tosa-validate="strict-op-spec-alignment=true" \
// RUN:   -verify-diagnostics -o /dev/null

// A causal mask from an arange: i64 constants, a difference and a comparison
// of positions. Every value is bounded within i32: all of it is i32, and it
// validates strictly for TOSA 1.0 (the second RUN line).
// CHECK-LABEL: func.func @causal_mask(
// CHECK-NOT:     i64
// CHECK:         "tosa.const"() <{values = dense<[0, 1, 2, 3]> : tensor<4xi32>}>
// CHECK:         tosa.sub {{.*}} -> tensor<4x4xi32>
// CHECK:         tosa.greater_equal {{.*}} : (tensor<4x4xi32>, tensor<1x1xi32>) -> tensor<4x4xi1>
func.func @causal_mask() -> tensor<4x4xi1> {
  %a = "tosa.const"() <{values = dense<[0, 1, 2, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %s1 = tosa.const_shape {values = dense<[4, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s2 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %s1 : (tensor<4xi64>, !tosa.shape<2>) -> tensor<4x1xi64>
  %c = tosa.reshape %a, %s2 : (tensor<4xi64>, !tosa.shape<2>) -> tensor<1x4xi64>
  %d = tosa.sub %r, %c : (tensor<4x1xi64>, tensor<1x4xi64>) -> tensor<4x4xi64>
  %z = "tosa.const"() <{values = dense<0> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %m = tosa.greater_equal %d, %z : (tensor<4x4xi64>, tensor<1x1xi64>) -> tensor<4x4xi1>
  return %m : tensor<4x4xi1>
}

// -----

// Input ids: an int64 argument the program only reshapes and gathers by (an
// index) travels as i32, marked int64 for the runtime, which checks each
// call's values fit. An i64 result of positions (constants) does too.
// CHECK-LABEL: func.func @input_ids(
// CHECK-SAME:    %[[IDS:.*]]: tensor<2x4xi32> {tosa_custom.dtype = "int64"}
// CHECK-SAME:    -> (tensor<1x8x3xf32>, tensor<4xi32> {tosa_custom.dtype = "int64"})
// CHECK:         %[[R:.*]] = tosa.reshape %[[IDS]]
// CHECK-NOT:     tosa.cast
// CHECK:         tosa.gather %{{.*}}, %[[R]] : (tensor<1x10x3xf32>, tensor<1x8xi32>)
func.func @input_ids(%ids: tensor<2x4xi64>, %t: tensor<1x10x3xf32>) -> (tensor<1x8x3xf32>, tensor<4xi64>) {
  %s = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %ids, %s : (tensor<2x4xi64>, !tosa.shape<2>) -> tensor<1x8xi64>
  %i = tosa.cast %r : (tensor<1x8xi64>) -> tensor<1x8xi32>
  %g = tosa.gather %t, %i : (tensor<1x10x3xf32>, tensor<1x8xi32>) -> tensor<1x8x3xf32>
  %p = "tosa.const"() <{values = dense<[0, 1, 2, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  return %g, %p : tensor<1x8x3xf32>, tensor<4xi64>
}

// -----

// An int64 input the program returns (or computes with: the minimum) keeps
// eager's int64 range: it is not narrowed, and the TOSA needs EXT-INT64.
// CHECK-LABEL: func.func @computed_with(
// CHECK-SAME:    %{{.*}}: tensor<4xi64>) -> tensor<1xi64>
func.func @computed_with(%x: tensor<4xi64>) -> tensor<1xi64> {
  // expected-error @below {{'tosa.reduce_min' op illegal: requires specification version compatible with 1.1.draft}}
  %m = tosa.reduce_min %x {axis = 0 : i32} : (tensor<4xi64>) -> tensor<1xi64>
  return %m : tensor<1xi64>
}

// -----

// Arithmetic that may leave i32 from an argument assumed within i32 (x + 2^31)
// keeps the argument int64: the ranges are then derived without the
// assumption, and the sum, of unknown range, stays i64 (validation names it).
// CHECK-LABEL: func.func @may_leave_i32(
// CHECK-SAME:    %{{.*}}: tensor<4xi64>) -> tensor<4xi64>
// CHECK:         tosa.add {{.*}} -> tensor<4xi64>
func.func @may_leave_i32(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @below {{'tosa.const' op illegal: requires specification version compatible with 1.1.draft}}
  %c = "tosa.const"() <{values = dense<2147483648> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @below {{'tosa.add' op illegal: requires specification version compatible with 1.1.draft}}
  %y = tosa.add %x, %c : (tensor<4xi64>, tensor<1xi64>) -> tensor<4xi64>
  return %y : tensor<4xi64>
}

// -----

// A value a tosa.custom takes stays as it was: the op's contract types its
// operands (CONTRACT.md §5), so the argument behind it stays int64 too, and
// the reshape is not TOSA 1.0 (tosa-validate does not check tosa.custom).
// CHECK-LABEL: func.func @custom_operand(
// CHECK-SAME:    %{{.*}}: tensor<4xi64>)
// CHECK:         tosa.reshape {{.*}} -> tensor<1x4xi64>
func.func @custom_operand(%x: tensor<4xi64>) -> tensor<1x4xi64> {
  %s = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-error @below {{'tosa.reshape' op illegal: requires specification version compatible with 1.1.draft}}
  %r = tosa.reshape %x, %s : (tensor<4xi64>, !tosa.shape<2>) -> tensor<1x4xi64>
  %c = tosa.custom %r {domain_name = "torch_mlir", operator_name = "torch.aten.neg", implementation_attrs = "{}"} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  return %c : tensor<1x4xi64>
}

// -----

// T5's bucket: an i64 from a float cast whose diagonal is -inf (unbounded)
// and selected away. The elements read are bounded; the unread diagonal may
// be anything, as in eager, where the select drops it as well.
// CHECK-LABEL: func.func @selected_away(
// CHECK-NOT:     i64
func.func @selected_away(%f: tensor<2x2xf32>) -> tensor<2x2xi32> {
  %c = "tosa.const"() <{values = dense<[[true, false], [false, true]]> : tensor<2x2xi1>}> : () -> tensor<2x2xi1>
  %k = "tosa.const"() <{values = dense<[[1, 7], [7, 1]]> : tensor<2x2xi64>}> : () -> tensor<2x2xi64>
  %n = "tosa.const"() <{values = dense<[[-2147483648, 3], [5, -2147483648]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %w = tosa.cast %n : (tensor<2x2xi32>) -> tensor<2x2xi64>
  %two = "tosa.const"() <{values = dense<-2> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %a = tosa.add %w, %two : (tensor<2x2xi64>, tensor<1x1xi64>) -> tensor<2x2xi64>
  %s = tosa.select %c, %k, %a : (tensor<2x2xi1>, tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  %r = tosa.cast %s : (tensor<2x2xi64>) -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}
