// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(tosa-custom-hide-loop-bounds)" | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --pass-pipeline="builtin.module(tosa-custom-hide-loop-bounds, canonicalize)" | FileCheck %s --check-prefix=FOLDED

// A bound computed at run time goes through an index_cast pair (opaque to
// ValueBounds); a constant bound and the step stay as they are. The
// canonicalizer folds each pair back.
// CHECK-LABEL: func.func @remainder(
// CHECK-SAME:    %[[T:.*]]: tensor<?xf32>
// CHECK:         %[[N:.*]] = tensor.dim %[[T]]
// CHECK:         %[[SPLIT:.*]] = arith.select
// CHECK:         %[[W:.*]] = arith.index_cast %[[SPLIT]] : index to i64
// CHECK:         %[[B:.*]] = arith.index_cast %[[W]] : i64 to index
// CHECK:         scf.for %{{.*}} = %c0 to %[[B]] step %c8
// CHECK:         %[[W2:.*]] = arith.index_cast %[[SPLIT]] : index to i64
// CHECK:         %[[L:.*]] = arith.index_cast %[[W2]] : i64 to index
// CHECK:         %[[W3:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[U:.*]] = arith.index_cast %[[W3]] : i64 to index
// CHECK:         scf.for %{{.*}} = %[[L]] to %[[U]] step %c1
// FOLDED-LABEL: func.func @remainder(
// FOLDED-NOT:    arith.index_cast
// FOLDED:        scf.for %{{.*}} = %c0 to %[[SPLIT:.*]] step %c8
// FOLDED:        scf.for %{{.*}} = %[[SPLIT]] to %{{.*}} step %c1
func.func @remainder(%t: tensor<?xf32>, %acc: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = tensor.dim %t, %c0 : tensor<?xf32>
  %whole = arith.divui %n, %c8 : index
  %floor = arith.muli %whole, %c8 : index
  %big = arith.cmpi sge, %n, %c8 : index
  %split = arith.select %big, %floor, %c0 : index
  %0 = scf.for %i = %c0 to %split step %c8 iter_args(%a = %acc) -> (f32) {
    %x = tensor.extract %t[%i] : tensor<?xf32>
    %s = arith.addf %a, %x : f32
    scf.yield %s : f32
  }
  %1 = scf.for %i = %split to %n step %c1 iter_args(%a = %0) -> (f32) {
    %x = tensor.extract %t[%i] : tensor<?xf32>
    %s = arith.addf %a, %x : f32
    scf.yield %s : f32
  }
  return %1 : f32
}

// -----

// Constant bounds, and an integer loop: nothing to hide.
// CHECK-LABEL: func.func @static(
// CHECK-NOT:     arith.index_cast
// CHECK:         scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32
func.func @static(%acc: f32, %m: i32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0 : i32
  %o = arith.constant 1 : i32
  %0 = scf.for %i = %c0 to %c16 step %c1 iter_args(%a = %acc) -> (f32) {
    %s = arith.addf %a, %a : f32
    scf.yield %s : f32
  }
  %1 = scf.for %j = %z to %m step %o iter_args(%a = %0) -> (f32) : i32 {
    %s = arith.addf %a, %a : f32
    scf.yield %s : f32
  }
  return %1 : f32
}
