// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-fold-exact-sizes | FileCheck %s

// tosa-to-tensor's reshape of [2, ?] to [2, ?, 32]: (d * 64) / 64 is d.
// CHECK-LABEL: func.func @reshape_size(
// CHECK-SAME:    %[[X:.*]]: tensor<2x?xf32>
// CHECK:         %[[D:.*]] = tensor.dim %[[X]]
// CHECK-NOT:     arith.divsi
// CHECK:         return %[[D]]
#times64 = affine_map<()[s0] -> (s0 * 64)>
func.func @reshape_size(%x: tensor<2x?xf32>) -> index {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %d = tensor.dim %x, %c1 : tensor<2x?xf32>
  %n = affine.apply #times64()[%d]
  %q = arith.divsi %n, %c64 : index
  return %q : index
}

// -----

// A chain: ((d * 64) / 32) is 2d, as an affine.apply of d; ((2d) * 32) / 64
// is d again.
// CHECK:       #[[TIMES2:.*]] = affine_map<()[s0] -> (s0 * 2)>
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[D:.*]]: index
// CHECK:         %[[TWICE:.*]] = affine.apply #[[TIMES2]]()[%[[D]]]
// CHECK-NOT:     arith.divsi
// CHECK:         return %[[TWICE]], %[[D]]
#times64 = affine_map<()[s0] -> (s0 * 64)>
#times32 = affine_map<()[s0] -> (s0 * 32)>
func.func @chain(%d: index) -> (index, index) {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %n = affine.apply #times64()[%d]
  %twice = arith.divsi %n, %c32 : index
  %m = affine.apply #times32()[%twice]
  %back = arith.divsi %m, %c64 : index
  return %twice, %back : index, index
}

// -----

// Not exact (d * 32 / 64 depends on d's parity), or not by a constant: kept.
// CHECK-LABEL: func.func @inexact(
// CHECK-COUNT-2: arith.divsi
#times32 = affine_map<()[s0] -> (s0 * 32)>
func.func @inexact(%d: index, %e: index) -> (index, index) {
  %c64 = arith.constant 64 : index
  %n = affine.apply #times32()[%d]
  %q = arith.divsi %n, %c64 : index
  %r = arith.divsi %n, %e : index
  return %q, %r : index, index
}

// -----

// Exact whatever the signs: (4d + 8) / 4 is d + 2 for divsi, divui and
// floordivsi alike; a constant over a constant is the constant.
// CHECK:       #[[PLUS2:.*]] = affine_map<()[s0] -> (s0 + 2)>
// CHECK-LABEL: func.func @forms(
// CHECK-SAME:    %[[D:.*]]: index
// CHECK:         %[[Q:.*]] = affine.apply #[[PLUS2]]()[%[[D]]]
// CHECK:         %[[F:.*]] = affine.apply #[[PLUS2]]()[%[[D]]]
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT:     div
// CHECK:         return %[[Q]], %[[F]], %[[C3]]
func.func @forms(%d: index) -> (index, index, index) {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %a = arith.muli %d, %c4 : index
  %b = arith.addi %a, %c8 : index
  %q = arith.divui %b, %c4 : index
  %f = arith.floordivsi %b, %c4 : index
  %k = arith.divsi %c12, %c4 : index
  return %q, %f, %k : index, index, index
}

// -----

// A max of two sizes that are one dim (a reshape's and the tensor's own) is
// that dim; of two different dims, kept.
// CHECK-LABEL: func.func @max_of_equal_sizes(
// CHECK-SAME:    %[[X:.*]]: tensor<2x?xf32>, %[[Y:.*]]: tensor<?xf32>
// CHECK:         %[[D:.*]] = tensor.dim %[[X]]
// CHECK:         %[[M:.*]] = arith.maxui %[[D]], %{{.*}}
// CHECK:         return %[[D]], %[[M]]
#times64 = affine_map<()[s0] -> (s0 * 64)>
func.func @max_of_equal_sizes(%x: tensor<2x?xf32>, %y: tensor<?xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %d = tensor.dim %x, %c1 : tensor<2x?xf32>
  %n = affine.apply #times64()[%d]
  %q = arith.divsi %n, %c64 : index
  %e = tensor.empty(%q) : tensor<?x32xf32>
  %de = tensor.dim %e, %c0 : tensor<?x32xf32>
  %m = arith.maxui %d, %de : index
  %dy = tensor.dim %y, %c0 : tensor<?xf32>
  %other = arith.maxui %d, %dy : index
  return %m, %other : index, index
}
