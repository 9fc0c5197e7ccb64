// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-narrow-i64-casts | FileCheck %s

// Llama's positions: an i64 constant, through i32 and back, reshaped, cast to
// f32. The reshape moves i32 values and the cast is from i32; no i64 is left.
// CHECK-LABEL: func.func @positions(
// CHECK-NOT:     i64
// CHECK:         %[[P:.*]] = "tosa.const"() <{values = dense<[0, 1, 2, 3]> : tensor<4xi32>}>
// CHECK:         %[[R:.*]] = tosa.reshape %[[P]], %{{.*}} : (tensor<4xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
// CHECK:         %[[F:.*]] = tosa.cast %[[R]] : (tensor<1x4xi32>) -> tensor<1x4xf32>
// CHECK:         return %[[F]]
func.func @positions() -> tensor<1x4xf32> {
  %s = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %c = "tosa.const"() <{values = dense<[0, 1, 2, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %0 = tosa.cast %c : (tensor<4xi64>) -> tensor<4xi32>
  %1 = tosa.cast %0 : (tensor<4xi32>) -> tensor<4xi64>
  %2 = tosa.reshape %1, %s : (tensor<4xi64>, !tosa.shape<2>) -> tensor<1x4xi64>
  %3 = tosa.cast %2 : (tensor<1x4xi64>) -> tensor<1x4xf32>
  return %3 : tensor<1x4xf32>
}

// -----

// A cast of an integer constant to a float is a float constant (arange(3.0)).
// CHECK-LABEL: func.func @constant_to_float(
// CHECK-NOT:     i64
// CHECK:         "tosa.const"() <{values = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf64>}>
// CHECK:         "tosa.const"() <{values = dense<7.000000e+00> : tensor<2xf32>}>
func.func @constant_to_float() -> (tensor<3xf64>, tensor<2xf32>) {
  %c = "tosa.const"() <{values = dense<[0, 1, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = tosa.cast %c : (tensor<3xi64>) -> tensor<3xf64>
  %s = "tosa.const"() <{values = dense<7> : tensor<2xi64>}> : () -> tensor<2xi64>
  %1 = tosa.cast %s : (tensor<2xi64>) -> tensor<2xf32>
  return %0, %1 : tensor<3xf64>, tensor<2xf32>
}

// -----

// An argument (a state counter, input ids) or i64 arithmetic: the range is
// not known, the cast stays (and tosa-validate names it).
// CHECK-LABEL: func.func @unknown_range(
// CHECK:         tosa.cast %{{.*}} : (tensor<4xi64>) -> tensor<4xf32>
// CHECK:         tosa.cast %{{.*}} : (tensor<4xi64>) -> tensor<4xf32>
func.func @unknown_range(%x: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tosa.cast %x : (tensor<4xi64>) -> tensor<4xf32>
  %1 = tosa.add %x, %x : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = tosa.cast %1 : (tensor<4xi64>) -> tensor<4xf32>
  return %0, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A constant beyond i32 moved by a reshape: not narrowed.
// CHECK-LABEL: func.func @too_wide(
// CHECK:         tosa.cast %{{.*}} : (tensor<1x2xi64>) -> tensor<1x2xi32>
func.func @too_wide() -> tensor<1x2xi32> {
  %s = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %c = "tosa.const"() <{values = dense<[0, 4294967296]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = tosa.reshape %c, %s : (tensor<2xi64>, !tosa.shape<2>) -> tensor<1x2xi64>
  %1 = tosa.cast %0 : (tensor<1x2xi64>) -> tensor<1x2xi32>
  return %1 : tensor<1x2xi32>
}

// -----

// RoBERTa's positions: a cumsum of a 0/1 mask (made from the input ids),
// lowered as pad, slice and add, is within [0, 4]: cast through i32.
// CHECK-LABEL: func.func @mask_cumsum(
// CHECK:         %[[S:.*]] = tosa.add
// CHECK:         %[[N:.*]] = tosa.cast %[[S]] : (tensor<1x4xi64>) -> tensor<1x4xi32>
// CHECK:         %[[F:.*]] = tosa.cast %[[N]] : (tensor<1x4xi32>) -> tensor<1x4xf32>
// CHECK:         return %[[F]]
func.func @mask_cumsum(%ids: tensor<1x4xi64>) -> tensor<1x4xf32> {
  %pad_id = "tosa.const"() <{values = dense<1> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %zero = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %start = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.equal %ids, %pad_id : (tensor<1x4xi64>, tensor<1x1xi64>) -> tensor<1x4xi1>
  %1 = tosa.logical_not %0 : (tensor<1x4xi1>) -> tensor<1x4xi1>
  %2 = tosa.cast %1 : (tensor<1x4xi1>) -> tensor<1x4xi64>
  %3 = tosa.pad %2, %padding, %zero : (tensor<1x4xi64>, !tosa.shape<4>, tensor<1xi64>) -> tensor<1x5xi64>
  %4 = tosa.slice %3, %start, %size : (tensor<1x5xi64>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x4xi64>
  %5 = tosa.add %2, %4 : (tensor<1x4xi64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %6 = tosa.cast %5 : (tensor<1x4xi64>) -> tensor<1x4xf32>
  return %6 : tensor<1x4xf32>
}

// -----

// OPT's positions: a cumsum of f32 ones, minus one, truncated and cast to
// i64: within [0, 3], so cast to i32 and widened.
// CHECK-LABEL: func.func @ones_cumsum_to_i64(
// CHECK:         %[[T:.*]] = tosa.select
// CHECK:         %[[N:.*]] = tosa.cast %[[T]] : (tensor<1x4xf32>) -> tensor<1x4xi32>
// CHECK:         %[[W:.*]] = tosa.cast %[[N]] : (tensor<1x4xi32>) -> tensor<1x4xi64>
// CHECK:         return %[[W]]
func.func @ones_cumsum_to_i64() -> tensor<1x4xi64> {
  %ones = "tosa.const"() <{values = dense<1.0> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %pad = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %start = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.pad %ones, %padding, %pad : (tensor<1x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<1x5xf32>
  %1 = tosa.slice %0, %start, %size : (tensor<1x5xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x4xf32>
  %2 = tosa.add %ones, %1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %3 = tosa.sub %2, %one : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %4 = tosa.floor %3 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %5 = tosa.ceil %3 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %6 = tosa.greater %zero, %3 : (tensor<1x1xf32>, tensor<1x4xf32>) -> tensor<1x4xi1>
  %7 = tosa.select %6, %5, %4 : (tensor<1x4xi1>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %8 = tosa.cast %7 : (tensor<1x4xf32>) -> tensor<1x4xi64>
  return %8 : tensor<1x4xi64>
}

// -----

// T5's buckets: |i - j| of two aranges, cast to f32 (bounded: narrowed), its
// log truncated to i64, where log(0) = -inf: unbounded on the diagonal, but
// the select reads the log's branch only where |i - j| >= 2, where it is
// bounded: narrowed too.
// CHECK-LABEL: func.func @select_drops_unbounded(
// CHECK:         %[[A:.*]] = tosa.abs %{{.*}} : (tensor<3x3xi64>) -> tensor<3x3xi64>
// CHECK:         %[[A32:.*]] = tosa.cast %[[A]] : (tensor<3x3xi64>) -> tensor<3x3xi32>
// CHECK:         tosa.cast %[[A32]] : (tensor<3x3xi32>) -> tensor<3x3xf32>
// CHECK:         %[[L:.*]] = tosa.floor
// CHECK:         %[[L32:.*]] = tosa.cast %[[L]] : (tensor<3x3xf32>) -> tensor<3x3xi32>
// CHECK:         %[[L64:.*]] = tosa.cast %[[L32]] : (tensor<3x3xi32>) -> tensor<3x3xi64>
// CHECK:         tosa.select %{{.*}}, %[[A]], %[[L64]]
func.func @select_drops_unbounded() -> tensor<3x3xi64> {
  %row = "tosa.const"() <{values = dense<[[0], [1], [2]]> : tensor<3x1xi64>}> : () -> tensor<3x1xi64>
  %col = "tosa.const"() <{values = dense<[[0, 1, 2]]> : tensor<1x3xi64>}> : () -> tensor<1x3xi64>
  %two = "tosa.const"() <{values = dense<2> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %0 = tosa.sub %col, %row : (tensor<1x3xi64>, tensor<3x1xi64>) -> tensor<3x3xi64>
  %1 = tosa.abs %0 : (tensor<3x3xi64>) -> tensor<3x3xi64>
  %2 = tosa.cast %1 : (tensor<3x3xi64>) -> tensor<3x3xf32>
  %3 = tosa.log %2 : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %4 = tosa.floor %3 : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %5 = tosa.cast %4 : (tensor<3x3xf32>) -> tensor<3x3xi64>
  %6 = tosa.greater %two, %1 : (tensor<1x1xi64>, tensor<3x3xi64>) -> tensor<3x3xi1>
  %7 = tosa.select %6, %1, %5 : (tensor<3x3xi1>, tensor<3x3xi64>, tensor<3x3xi64>) -> tensor<3x3xi64>
  return %7 : tensor<3x3xi64>
}

// -----

// Refusals: the same log read where it is -inf (no select drops it), a float
// argument (its range is unknown), and i64 arithmetic whose bounds leave i32.
// CHECK-LABEL: func.func @unbounded_stays(
// CHECK:         tosa.cast %{{.*}} : (tensor<3xf32>) -> tensor<3xi64>
// CHECK:         tosa.cast %{{.*}} : (tensor<3xf32>) -> tensor<3xi64>
// CHECK:         tosa.cast %{{.*}} : (tensor<3xi64>) -> tensor<3xf32>
// CHECK-NOT:     xi32>
func.func @unbounded_stays(%x: tensor<3xf32>) -> (tensor<3xi64>, tensor<3xi64>, tensor<3xf32>) {
  %c = "tosa.const"() <{values = dense<[0.0, 1.0, 2.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0 = tosa.log %c : (tensor<3xf32>) -> tensor<3xf32>
  %1 = tosa.cast %0 : (tensor<3xf32>) -> tensor<3xi64>
  %2 = tosa.cast %x : (tensor<3xf32>) -> tensor<3xi64>
  %big = "tosa.const"() <{values = dense<[0, 1, 2147483647]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %3 = tosa.add %big, %big : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %4 = tosa.cast %3 : (tensor<3xi64>) -> tensor<3xf32>
  return %1, %2, %4 : tensor<3xi64>, tensor<3xi64>, tensor<3xf32>
}

// -----

// The same buckets on ? dims (T5 with a dynamic sequence length): the
// aranges are slices of a constant range, so every element is within
// [0, 7], and the log's branch is read where |i - j| >= 2: narrowed under
// that guard.
// CHECK-LABEL: func.func @select_drops_unbounded_dynamic(
// CHECK:         %[[L:.*]] = tosa.floor
// CHECK:         %[[L32:.*]] = tosa.cast %[[L]] : (tensor<?x?xf32>) -> tensor<?x?xi32>
// CHECK:         %[[L64:.*]] = tosa.cast %[[L32]] : (tensor<?x?xi32>) -> tensor<?x?xi64>
// CHECK:         tosa.select %{{.*}}, %{{.*}}, %[[L64]]
func.func @select_drops_unbounded_dynamic(%x: tensor<?xf32>) -> tensor<?x?xi64> {
  %n = tosa.dim %x {axis = 0 : i32} : (tensor<?xf32>) -> !tosa.shape<1>
  %range = "tosa.const"() <{values = dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %two = "tosa.const"() <{values = dense<2> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %zero = tosa.const_shape {values = dense<0> : tensor<1xindex>} : () -> !tosa.shape<1>
  %one = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  %i = tosa.slice %range, %zero, %n : (tensor<8xi64>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<?xi64>
  %rows = tosa.concat_shape %n, %one : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %cols = tosa.concat_shape %one, %n : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %row = tosa.reshape %i, %rows : (tensor<?xi64>, !tosa.shape<2>) -> tensor<?x1xi64>
  %col = tosa.reshape %i, %cols : (tensor<?xi64>, !tosa.shape<2>) -> tensor<1x?xi64>
  %0 = tosa.sub %col, %row : (tensor<1x?xi64>, tensor<?x1xi64>) -> tensor<?x?xi64>
  %1 = tosa.abs %0 : (tensor<?x?xi64>) -> tensor<?x?xi64>
  %2 = tosa.cast %1 : (tensor<?x?xi64>) -> tensor<?x?xf32>
  %3 = tosa.log %2 : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %4 = tosa.floor %3 : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %5 = tosa.cast %4 : (tensor<?x?xf32>) -> tensor<?x?xi64>
  %6 = tosa.greater %two, %1 : (tensor<1x1xi64>, tensor<?x?xi64>) -> tensor<?x?xi1>
  %7 = tosa.select %6, %1, %5 : (tensor<?x?xi1>, tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  return %7 : tensor<?x?xi64>
}

// -----

// The guard holds where the select reads, so it does not carry through a
// transpose (another element's guard): the cast stays i64.
// CHECK-LABEL: func.func @guard_not_moved(
// CHECK:         tosa.cast %{{.*}} : (tensor<?x?xf32>) -> tensor<?x?xi64>
// CHECK-NOT:     xi32>
func.func @guard_not_moved(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %two = "tosa.const"() <{values = dense<2> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %lo = "tosa.const"() <{values = dense<0> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %1 = tosa.maximum %x, %lo : (tensor<?x?xi64>, tensor<1x1xi64>) -> tensor<?x?xi64>
  %2 = tosa.cast %1 : (tensor<?x?xi64>) -> tensor<?x?xf32>
  %3 = tosa.log %2 : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %4 = tosa.transpose %3 {perms = array<i32: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %5 = tosa.cast %4 : (tensor<?x?xf32>) -> tensor<?x?xi64>
  %6 = tosa.greater %two, %1 : (tensor<1x1xi64>, tensor<?x?xi64>) -> tensor<?x?xi1>
  %7 = tosa.select %6, %1, %5 : (tensor<?x?xi1>, tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  return %7 : tensor<?x?xi64>
}

// -----

// OPT's positions on a ? sequence: a cumsum of ones as a log-step scan (pad
// by 1, 2, 4, each a slice and an add), minus one, truncated to i64. Each
// add doubles the bound: [0, 7] after three steps, whatever the length.
// CHECK-LABEL: func.func @scan_of_ones_dynamic(
// CHECK:         %[[P32:.*]] = tosa.cast %{{.*}} : (tensor<1x?xf32>) -> tensor<1x?xi32>
// CHECK:         tosa.cast %[[P32]] : (tensor<1x?xi32>) -> tensor<1x?xi64>
func.func @scan_of_ones_dynamic(%x: tensor<?xf32>) -> tensor<1x?xi64> {
  %lead = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  %n = tosa.dim %x {axis = 0 : i32} : (tensor<?xf32>) -> !tosa.shape<1>
  %shape = tosa.concat_shape %lead, %n : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %ones = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %origin = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %by1 = tosa.const_shape {values = dense<[0, 0, 1, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %by2 = tosa.const_shape {values = dense<[0, 0, 2, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %by4 = tosa.const_shape {values = dense<[0, 0, 4, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %0 = tosa.tile %ones, %shape : (tensor<1x1xf32>, !tosa.shape<2>) -> tensor<1x?xf32>
  %1 = tosa.pad %0, %by1, %zero : (tensor<1x?xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<1x?xf32>
  %2 = tosa.slice %1, %origin, %shape : (tensor<1x?xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x?xf32>
  %3 = tosa.add %0, %2 : (tensor<1x?xf32>, tensor<1x?xf32>) -> tensor<1x?xf32>
  %4 = tosa.pad %3, %by2, %zero : (tensor<1x?xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<1x?xf32>
  %5 = tosa.slice %4, %origin, %shape : (tensor<1x?xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x?xf32>
  %6 = tosa.add %3, %5 : (tensor<1x?xf32>, tensor<1x?xf32>) -> tensor<1x?xf32>
  %7 = tosa.pad %6, %by4, %zero : (tensor<1x?xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<1x?xf32>
  %8 = tosa.slice %7, %origin, %shape : (tensor<1x?xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x?xf32>
  %9 = tosa.add %6, %8 : (tensor<1x?xf32>, tensor<1x?xf32>) -> tensor<1x?xf32>
  %10 = tosa.sub %9, %ones : (tensor<1x?xf32>, tensor<1x1xf32>) -> tensor<1x?xf32>
  %11 = tosa.floor %10 : (tensor<1x?xf32>) -> tensor<1x?xf32>
  %12 = tosa.cast %11 : (tensor<1x?xf32>) -> tensor<1x?xi64>
  return %12 : tensor<1x?xi64>
}

// -----

// A sum over a ? axis is as large as the axis is long: not bounded, the cast
// stays i64.
// CHECK-LABEL: func.func @sum_over_dynamic_axis(
// CHECK:         tosa.cast %{{.*}} : (tensor<1x1xf32>) -> tensor<1x1xi64>
func.func @sum_over_dynamic_axis(%x: tensor<1x?xi64>) -> tensor<1x1xi64> {
  %lo = "tosa.const"() <{values = dense<0> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %hi = "tosa.const"() <{values = dense<1> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %0 = tosa.maximum %x, %lo : (tensor<1x?xi64>, tensor<1x1xi64>) -> tensor<1x?xi64>
  %1 = tosa.minimum %0, %hi : (tensor<1x?xi64>, tensor<1x1xi64>) -> tensor<1x?xi64>
  %2 = tosa.reduce_sum %1 {axis = 1 : i32} : (tensor<1x?xi64>) -> tensor<1x1xi64>
  %3 = tosa.cast %2 : (tensor<1x1xi64>) -> tensor<1x1xf32>
  %4 = tosa.floor %3 : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %5 = tosa.cast %4 : (tensor<1x1xf32>) -> tensor<1x1xi64>
  return %5 : tensor<1x1xi64>
}
