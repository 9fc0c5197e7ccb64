// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-free-after-last-use | FileCheck %s

// Each free right after the last op that uses its buffer; the ops keep
// their order.
// CHECK-LABEL: func.func @two_buffers(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         memref.copy %arg0, %[[A]]
// CHECK-NEXT:    memref.copy %[[A]], %[[B]]
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    memref.copy %[[B]], %arg1
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    memref.copy %arg0, %arg1
// CHECK-NEXT:    return
func.func @two_buffers(%x: memref<4xf32>, %y: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %y : memref<4xf32> to memref<4xf32>
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A view's use and a loop that carries the buffer (its result aliases it)
// are uses of the buffer: the free follows the last of them, nested uses
// counted at their top-level op.
// CHECK-LABEL: func.func @aliases(
// CHECK:         %[[V:.*]] = memref.subview
// CHECK:         %[[L:.*]] = scf.for
// CHECK:         memref.copy %[[V]], %arg1
// CHECK-NEXT:    memref.copy %[[L]], %arg1
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    memref.copy %arg1, %arg1
func.func @aliases(%x: memref<8xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %v = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %l = scf.for %i = %c0 to %c2 step %c1 iter_args(%m = %v) -> (memref<4xf32, strided<[1]>>) {
    scf.yield %m : memref<4xf32, strided<[1]>>
  }
  memref.copy %v, %y : memref<4xf32, strided<[1]>> to memref<4xf32>
  memref.copy %l, %y : memref<4xf32, strided<[1]>> to memref<4xf32>
  memref.copy %y, %y : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// A buffer whose address is taken as a number keeps its free where it was.
// CHECK-LABEL: func.func @address_taken(
// CHECK:         memref.extract_aligned_pointer_as_index
// CHECK:         memref.copy %arg0, %arg0
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    return
func.func @address_taken(%x: memref<4xf32>) -> index {
  %a = memref.alloc() : memref<4xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  memref.copy %x, %x : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %p : index
}
