// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-lower-copies | FileCheck %s

// Copies between contiguous buffers stay for finalize-memref-to-llvm's memcpy:
// identity layouts of any sizes, a slice of unit outer dims, a contiguous
// slice at a run-time offset, rank 0.
// CHECK-LABEL: func.func @contiguous(
// CHECK-COUNT-5: memref.copy
// CHECK-NOT:     linalg.copy
func.func @contiguous(%a: memref<2x16x1xf32>, %b: memref<2x16x1xf32>, %c: memref<?x16xf32>, %d: memref<?x16xf32>,
                      %e: memref<1x16xf32, strided<[64, 1]>>, %f: memref<1x16xf32>,
                      %g: memref<4x16xf32, strided<[16, 1], offset: ?>>, %h: memref<4x16xf32>,
                      %i: memref<f32>, %j: memref<f32>) {
  memref.copy %a, %b : memref<2x16x1xf32> to memref<2x16x1xf32>
  memref.copy %c, %d : memref<?x16xf32> to memref<?x16xf32>
  memref.copy %e, %f : memref<1x16xf32, strided<[64, 1]>> to memref<1x16xf32>
  memref.copy %g, %h : memref<4x16xf32, strided<[16, 1], offset: ?>> to memref<4x16xf32>
  memref.copy %i, %j : memref<f32> to memref<f32>
  return
}

// -----

// A strided buffer on either side, a strided layout with a `?` size, or no
// elements at all (the lowering calls memrefCopy for those): linalg.copy.
// CHECK-LABEL: func.func @strided(
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy {{.*}}ins(%arg0 : memref<4x16xf32, strided<[32, 1]>>) outs(%arg1 : memref<4x16xf32>)
// CHECK:         linalg.copy {{.*}}ins(%arg1 : memref<4x16xf32>) outs(%arg0 : memref<4x16xf32, strided<[32, 1]>>)
// CHECK:         linalg.copy {{.*}}ins(%arg2 : memref<?x4xf32, strided<[4, 1]>>) outs(%arg3 : memref<?x4xf32>)
// CHECK:         linalg.copy {{.*}}ins(%arg4 : memref<0x4xf32, strided<[4, 1]>>)
// CHECK-NOT:     memref.copy
func.func @strided(%a: memref<4x16xf32, strided<[32, 1]>>, %b: memref<4x16xf32>,
                   %c: memref<?x4xf32, strided<[4, 1]>>, %d: memref<?x4xf32>,
                   %e: memref<0x4xf32, strided<[4, 1]>>, %f: memref<0x4xf32>) {
  memref.copy %a, %b : memref<4x16xf32, strided<[32, 1]>> to memref<4x16xf32>
  memref.copy %b, %a : memref<4x16xf32> to memref<4x16xf32, strided<[32, 1]>>
  memref.copy %c, %d : memref<?x4xf32, strided<[4, 1]>> to memref<?x4xf32>
  memref.copy %e, %f : memref<0x4xf32, strided<[4, 1]>> to memref<0x4xf32>
  return
}

// -----

// Inside loops too.
// CHECK-LABEL: func.func @in_a_loop(
// CHECK:         scf.for
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      linalg.copy
func.func @in_a_loop(%a: memref<8x16xf32>, %b: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.subview %a[0, %i] [8, 4] [1, 1] : memref<8x16xf32> to memref<8x4xf32, strided<[16, 1], offset: ?>>
    memref.copy %v, %b : memref<8x4xf32, strided<[16, 1], offset: ?>> to memref<8x4xf32>
  }
  return
}
