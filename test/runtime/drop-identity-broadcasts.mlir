// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-drop-identity-broadcasts | FileCheck %s

// tosa-to-linalg's broadcast of a `?` dim, taken when it is 1, to a size that
// is that same dim: 1 broadcast to 1, the value itself.
#bcast = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @identity(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4xf32>
// CHECK:         return %[[X]]
func.func @identity(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %one = arith.cmpi eq, %d, %c1 : index
  %r = scf.if %one -> (tensor<?x4xf32>) {
    %e = tensor.empty(%d) : tensor<?x4xf32>
    %b = linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<?x4xf32>
    scf.yield %b : tensor<?x4xf32>
  } else {
    scf.yield %x : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// To another size (the other operand's, which may be larger): a real
// broadcast, kept.
#bcast = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @real(
// CHECK:         %[[R:.*]] = scf.if
// CHECK:         return %[[R]]
func.func @real(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %dy = tensor.dim %y, %c0 : tensor<?x4xf32>
  %n = arith.maxui %d, %dy : index
  %one = arith.cmpi eq, %d, %c1 : index
  %r = scf.if %one -> (tensor<?x4xf32>) {
    %e = tensor.empty(%n) : tensor<?x4xf32>
    %b = linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<?x4xf32>
    scf.yield %b : tensor<?x4xf32>
  } else {
    scf.yield %x : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}
