// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-split-functions="ops=9 above=9" | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-split-functions="pieces=2 pieces-above=30" | FileCheck %s --check-prefix=PIECES
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-split-functions="ops=12 above=9" | FileCheck %s --check-prefix=OWN

// Three loop nests of 5 ops each past a bound of 9: runs of about 9 ops
// become private functions, not inlined by LLVM, called in order. A value
// computed in one piece and read later (%sum) is its result; the buffers
// they share are arguments; constants are cloned into each piece reading
// them (LLVM folds them there); the stack buffer stays in @main, and so
// does what is left, one small loop nest (a call would cost as much).
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:.*]]: memref<64xf32>, %[[Y:.*]]: memref<64xf32>)
// CHECK:         %[[T:.*]] = memref.alloca() : memref<64xf32>
// CHECK-NEXT:    %[[SUM:.*]] = call @__tosa_custom_part0(%[[X]], %[[T]]) : (memref<64xf32>, memref<64xf32>) -> f32
// CHECK-NEXT:    scf.for
// CHECK:           arith.divf %{{.*}}, %[[SUM]]
// CHECK:         return
// CHECK-LABEL: func.func private @__tosa_custom_part0(
// CHECK-SAME:    %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>) -> f32
// CHECK-SAME:    attributes {llvm.no_inline}
// CHECK-DAG:     arith.constant 0 : index
// CHECK-DAG:     arith.constant 64 : index
// CHECK:         scf.for
// CHECK:           memref.store {{.*}}, %[[B]]
// CHECK:         %[[S:.*]] = scf.for
// CHECK:         return %[[S]] : f32
// CHECK-NOT:     __tosa_custom_part1
func.func @main(%x: memref<64xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.alloca() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %t[%i] : memref<64xf32>
  }
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %t[%i] : memref<64xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.divf %v, %sum : f32
    memref.store %w, %y[%i] : memref<64xf32>
  }
  return
}

// -----

// A function within the bound is left as it is.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     call
// CHECK:         return
// CHECK-NOT:     __tosa_custom_part
func.func @small(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %x[%c0] : memref<4xf32>
  return
}

// -----

// A fresh allocation stays in @main, and a piece's argument that is the only
// view of one among the call's buffers is `llvm.noalias` (LLVM knew that of
// two allocations in one function); the caller's own buffers are not.
// CHECK-LABEL: func.func @fresh(
// CHECK:         %[[T:.*]] = memref.alloc() : memref<64xf32>
// CHECK:         call @__tosa_custom_part0(%arg0, %[[T]])
// CHECK:         memref.dealloc %[[T]]
// CHECK-LABEL: func.func private @__tosa_custom_part0(
// CHECK-SAME:    %{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32> {llvm.noalias}) attributes {llvm.no_inline}
func.func @fresh(%x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    memref.store %v, %t[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %t[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}

// -----

// pieces=2 (compiled/parallel.py: one piece per compiling process): a
// function of more than PIECES-ABOVE ops (35: six loop nests) is cut into
// two pieces of at least half its size each but the last, however far under
// OPS and ABOVE (4000, 30000 by default) it is; one under it (@main, @fresh
// above: 22, 20 ops) is left whole.
// PIECES-LABEL: func.func @main(
// PIECES-NOT:     call
// PIECES-LABEL: func.func @sixths(
// PIECES:         call @__tosa_custom_part0(
// PIECES-NEXT:    call @__tosa_custom_part1(
// PIECES-NEXT:    return
// PIECES-LABEL: func.func private @__tosa_custom_part0(
// PIECES-SAME:    attributes {llvm.no_inline}
// PIECES-COUNT-4: scf.for
// PIECES:         return
// PIECES-LABEL: func.func private @__tosa_custom_part1(
// PIECES-COUNT-2: scf.for
// PIECES:         return
// PIECES-NOT:     __tosa_custom_part2
func.func @sixths(%x: memref<64xf32>, %y0: memref<64xf32>, %y1: memref<64xf32>, %y2: memref<64xf32>,
                  %y3: memref<64xf32>, %y4: memref<64xf32>, %y5: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y0[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y1[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y2[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y3[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y4[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y5[%i] : memref<64xf32>
  }
  return
}

// -----

// An allocation whose every use (its free included) is in one piece moves
// into it: the piece's own buffer, not an argument. One also used outside
// the piece (its free, here) stays in the caller.
// OWN-LABEL: func.func @own(
// OWN:         %[[S:.*]] = memref.alloc() : memref<64xf32>
// OWN-NEXT:    call @__tosa_custom_part0(%arg0, %[[S]])
// OWN-NEXT:    memref.dealloc %[[S]]
// OWN-LABEL: func.func private @__tosa_custom_part0(
// OWN-SAME:    %{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32> {llvm.noalias})
// OWN:         %[[T:.*]] = memref.alloc() : memref<64xf32>
// OWN:         memref.dealloc %[[T]]
// OWN:         return
func.func @own(%x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64xf32>
  %s = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    memref.store %v, %t[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %t[%i] : memref<64xf32>
    memref.store %v, %s[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %s[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<64xf32>
  }
  memref.dealloc %s : memref<64xf32>
  return
}

// -----

// A vector of i1 read across a cut crosses the call as a vector of i8
// (LLVM's X86 back end aborts on a <1 x i1> argument on AVX-512 hosts):
// widened before the call, narrowed once in the piece.
// CHECK-LABEL: func.func @mask(
// CHECK:         %[[P:.*]]:3 = call @__tosa_custom_part0(%{{.*}}) : (f32) -> (vector<1xi1>, vector<1xf32>, vector<1xf32>)
// CHECK:         %[[W:.*]] = arith.extui %[[P]]#0 : vector<1xi1> to vector<1xi8>
// CHECK-NEXT:    call @__tosa_custom_part1(%[[W]], {{.*}}) : (vector<1xi8>, vector<1xf32>, vector<1xf32>) -> f32
// CHECK-LABEL: func.func private @__tosa_custom_part0(
// CHECK-SAME:    -> (vector<1xi1>, vector<1xf32>, vector<1xf32>)
// CHECK-LABEL: func.func private @__tosa_custom_part1(
// CHECK-SAME:    %[[A:.*]]: vector<1xi8>, %{{.*}}: vector<1xf32>, %{{.*}}: vector<1xf32>) -> f32
// CHECK-NEXT:    %[[N:.*]] = arith.trunci %[[A]] : vector<1xi8> to vector<1xi1>
// CHECK:         arith.select %[[N]]
func.func @mask(%x: f32) -> f32 {
  %zero = arith.constant dense<0.0> : vector<1xf32>
  %v = vector.broadcast %x : f32 to vector<1xf32>
  %m = arith.cmpf olt, %v, %zero : vector<1xf32>
  %n = arith.negf %v : vector<1xf32>
  %a = arith.select %m, %n, %v : vector<1xi1>, vector<1xf32>
  %b = arith.addf %a, %a : vector<1xf32>
  %c = arith.mulf %b, %a : vector<1xf32>
  %d = arith.addf %c, %b : vector<1xf32>
  %e = arith.mulf %d, %b : vector<1xf32>
  %f = arith.subf %e, %a : vector<1xf32>
  %g = arith.select %m, %f, %a : vector<1xi1>, vector<1xf32>
  %h = arith.addf %g, %f : vector<1xf32>
  %r = vector.extract %h[0] : f32 from vector<1xf32>
  return %r : f32
}
