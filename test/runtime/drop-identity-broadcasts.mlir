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

// -----

// A chain: the second broadcast's condition reads a dim of the first's
// result, an scf.if; following it to the size both branches have shows it is
// the same dim, so both go in one run.
#bcast = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4xf32>
// CHECK:         return %[[X]]
func.func @chain(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
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
  %dr = tensor.dim %r, %c0 : tensor<?x4xf32>
  %n = arith.maxui %dr, %d : index
  %one2 = arith.cmpi eq, %dr, %c1 : index
  %r2 = scf.if %one2 -> (tensor<?x4xf32>) {
    %e = tensor.empty(%n) : tensor<?x4xf32>
    %b = linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<?x4xf32>
    scf.yield %b : tensor<?x4xf32>
  } else {
    scf.yield %r : tensor<?x4xf32>
  }
  return %r2 : tensor<?x4xf32>
}

// -----

// The condition tests another tensor's dim, equal to the copy's size but not
// known to be x's: x may have more rows than 1 then, and the copy reads only
// its first. Kept.
#bcast = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @condition_on_another_dim(
// CHECK:         %[[R:.*]] = scf.if
// CHECK:         return %[[R]]
func.func @condition_on_another_dim(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dy = tensor.dim %y, %c0 : tensor<?x4xf32>
  %one = arith.cmpi eq, %dy, %c1 : index
  %r = scf.if %one -> (tensor<?x4xf32>) {
    %e = tensor.empty(%dy) : tensor<?x4xf32>
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

// x is an outlined custom op's result: a buffer of `d` rows the kernel
// writes, as a tensor. Its dim is the allocation's size, so the broadcast of
// it to `d` rows is x itself.
#bcast = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @custom_result(
// CHECK:         %[[X:.*]] = bufferization.to_tensor
// CHECK:         return %[[X]]
func.func @custom_result(%y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %y, %c0 : tensor<?x4xf32>
  %buffer = memref.alloc(%d) : memref<?x4xf32>
  %x = bufferization.to_tensor %buffer restrict writable : memref<?x4xf32> to tensor<?x4xf32>
  %dx = tensor.dim %x, %c0 : tensor<?x4xf32>
  %one = arith.cmpi eq, %dx, %c1 : index
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
