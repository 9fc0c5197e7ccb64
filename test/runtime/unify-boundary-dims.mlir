// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-unify-boundary-dims | FileCheck %s

// Dims that are one boundary symbol (tosa_custom.shape) are equal on every
// call: each is read from the input that binds the symbol, so equal sizes are
// one value (here max(d, d), which canonicalization folds).
// CHECK-LABEL: func.func @same_symbol(
// CHECK-SAME:    %[[A:.*]]: tensor<?x4xf32> {{.*}}, %[[B:.*]]: tensor<?x4xf32>
// CHECK:         %[[DA:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK:         %[[DB:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK:         arith.maxui %[[DA]], %[[DB]]
// CHECK-NOT:     tensor.dim %[[B]]
func.func @same_symbol(%a: tensor<?x4xf32> {tosa_custom.shape = ["s0", 4]}, %b: tensor<?x4xf32> {tosa_custom.shape = ["s0", 4]}) -> index {
  %c0 = arith.constant 0 : index
  %da = tensor.dim %a, %c0 : tensor<?x4xf32>
  %db = tensor.dim %b, %c0 : tensor<?x4xf32>
  %m = arith.maxui %da, %db : index
  return %m : index
}

// -----

// A second dim of the same input, bound to the same symbol: read as the first.
// CHECK-LABEL: func.func @square(
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         tensor.dim %arg0, %[[C0]]
// CHECK-NOT:     tensor.dim %arg0, %c1
func.func @square(%a: tensor<?x?xf32> {tosa_custom.shape = ["s0", "s0"]}) -> index {
  %c1 = arith.constant 1 : index
  %d = tensor.dim %a, %c1 : tensor<?x?xf32>
  return %d : index
}

// -----

// Other symbols, expressions and inputs without the attribute are left alone.
// CHECK-LABEL: func.func @different(
// CHECK:         tensor.dim %arg1, %c0
// CHECK:         tensor.dim %arg2, %c0
// CHECK:         tensor.dim %arg3, %c0
func.func @different(%a: tensor<?xf32> {tosa_custom.shape = ["s0"]}, %b: tensor<?xf32> {tosa_custom.shape = ["s1"]},
                     %c: tensor<?xf32> {tosa_custom.shape = ["2*s0"]}, %d: tensor<?xf32>) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %db = tensor.dim %b, %c0 : tensor<?xf32>
  %dc = tensor.dim %c, %c0 : tensor<?xf32>
  %dd = tensor.dim %d, %c0 : tensor<?xf32>
  return %db, %dc, %dd : index, index, index
}
