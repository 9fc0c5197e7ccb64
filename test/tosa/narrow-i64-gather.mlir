// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-narrow-i64-gather | FileCheck %s

// BERT's token-type buffer: an i64 constant table whose values fit in i32.
// CHECK-LABEL: func.func @constant_table(
// CHECK-SAME:    %[[I:.*]]: tensor<1x3xi32>
// CHECK:         %[[T:.*]] = "tosa.const"() <{values = dense<{{.*}}> : tensor<1x4x1xi64>}>
// CHECK:         %[[N:.*]] = tosa.cast %[[T]] : (tensor<1x4x1xi64>) -> tensor<1x4x1xi32>
// CHECK:         %[[G:.*]] = tosa.gather %[[N]], %[[I]] : (tensor<1x4x1xi32>, tensor<1x3xi32>) -> tensor<1x3x1xi32>
// CHECK:         %[[W:.*]] = tosa.cast %[[G]] : (tensor<1x3x1xi32>) -> tensor<1x3x1xi64>
// CHECK:         return %[[W]]
func.func @constant_table(%i: tensor<1x3xi32>) -> tensor<1x3x1xi64> {
  %t = "tosa.const"() <{values = dense<[[[0], [1], [-5], [2147483647]]]> : tensor<1x4x1xi64>}> : () -> tensor<1x4x1xi64>
  %0 = tosa.gather %t, %i : (tensor<1x4x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
  return %0 : tensor<1x3x1xi64>
}

// -----

// A value beyond i32: the gather stays i64 (and tosa-validate names it).
// CHECK-LABEL: func.func @too_wide(
// CHECK:         tosa.gather %{{.*}} : (tensor<1x2x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
func.func @too_wide(%i: tensor<1x3xi32>) -> tensor<1x3x1xi64> {
  %t = "tosa.const"() <{values = dense<[[[0], [2147483648]]]> : tensor<1x2x1xi64>}> : () -> tensor<1x2x1xi64>
  %0 = tosa.gather %t, %i : (tensor<1x2x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
  return %0 : tensor<1x3x1xi64>
}

// -----

// A table computed at run time: its range is unknown, the gather stays.
// CHECK-LABEL: func.func @argument_table(
// CHECK:         tosa.gather %{{.*}} : (tensor<1x8x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
func.func @argument_table(%t: tensor<1x8x1xi64>, %i: tensor<1x3xi32>) -> tensor<1x3x1xi64> {
  %0 = tosa.gather %t, %i : (tensor<1x8x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
  return %0 : tensor<1x3x1xi64>
}

// -----

// A dense_resource table (how torch-mlir imports a buffer) is read from the blob.
// CHECK-LABEL: func.func @resource_table(
// CHECK:         tosa.gather %{{.*}} : (tensor<1x2x1xi32>, tensor<1x3xi32>) -> tensor<1x3x1xi32>
func.func @resource_table(%i: tensor<1x3xi32>) -> tensor<1x3x1xi64> {
  %t = "tosa.const"() <{values = dense_resource<table> : tensor<1x2x1xi64>}> : () -> tensor<1x2x1xi64>
  %0 = tosa.gather %t, %i : (tensor<1x2x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
  return %0 : tensor<1x3x1xi64>
}
{-#
  dialect_resources: {
    builtin: {
      table: "0x080000000100000000000000FEFFFFFFFFFFFFFF"
    }
  }
#-}

// -----

// RoBERTa's token-type buffer: an i64 constant, tiled and reshaped before the
// gather. Moves keep its values, which fit in i32.
// CHECK-LABEL: func.func @moved_constant_table(
// CHECK:         %[[T:.*]] = tosa.reshape
// CHECK:         %[[N:.*]] = tosa.cast %[[T]] : (tensor<1x8x1xi64>) -> tensor<1x8x1xi32>
// CHECK:         tosa.gather %[[N]], %{{.*}} : (tensor<1x8x1xi32>, tensor<1x3xi32>) -> tensor<1x3x1xi32>
func.func @moved_constant_table(%i: tensor<1x3xi32>) -> tensor<1x3x1xi64> {
  %c = "tosa.const"() <{values = dense<[[0, 0, 0, 1]]> : tensor<1x4xi64>}> : () -> tensor<1x4xi64>
  %multiples = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %shape = tosa.const_shape {values = dense<[1, 8, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %0 = tosa.tile %c, %multiples : (tensor<1x4xi64>, !tosa.shape<2>) -> tensor<2x4xi64>
  %1 = tosa.reshape %0, %shape : (tensor<2x4xi64>, !tosa.shape<3>) -> tensor<1x8x1xi64>
  %2 = tosa.gather %1, %i : (tensor<1x8x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
  return %2 : tensor<1x3x1xi64>
}

// -----

// A table computed at run time from i32 values (topk's indices): it fits.
// Doubled in i64 it may not: that gather stays.
// CHECK-LABEL: func.func @computed_tables(
// CHECK:         tosa.gather %{{.*}} : (tensor<1x8x1xi32>, tensor<1x3xi32>) -> tensor<1x3x1xi32>
// CHECK:         tosa.gather %{{.*}} : (tensor<1x8x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
func.func @computed_tables(%t: tensor<1x8x1xi32>, %i: tensor<1x3xi32>) -> (tensor<1x3x1xi64>, tensor<1x3x1xi64>) {
  %0 = tosa.cast %t : (tensor<1x8x1xi32>) -> tensor<1x8x1xi64>
  %1 = tosa.gather %0, %i : (tensor<1x8x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
  %2 = tosa.add %0, %0 : (tensor<1x8x1xi64>, tensor<1x8x1xi64>) -> tensor<1x8x1xi64>
  %3 = tosa.gather %2, %i : (tensor<1x8x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
  return %1, %3 : tensor<1x3x1xi64>, tensor<1x3x1xi64>
}
