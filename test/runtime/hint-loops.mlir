// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-hint-loops=above=0 | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-hint-loops="above=0 all" | FileCheck %s --check-prefix=ALL

// A nest with a loop over a `?` dim is hinted, its loop of constant trip
// count too (neither vectorized nor unrolled by LLVM); in a static nest
// beside it (64 stores a call: cold) only the outer loop is, against
// unrolling; with `all`, every loop against both.
// CHECK-DAG: #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[BOTH:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]], isVectorized = true>
// CHECK-DAG: #[[OUTER:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>{{$}}
// CHECK-LABEL: func.func @rows(
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store
// CHECK-NEXT:      } {loop_annotation = #[[BOTH]]}
// CHECK-NEXT:    } {loop_annotation = #[[BOTH]]}
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store
// CHECK-NEXT:      }{{$}}
// CHECK-NEXT:    } {loop_annotation = #[[OUTER]]}
// ALL-LABEL:   func.func @rows(
// ALL-COUNT-4:   } {loop_annotation = #loop_annotation}
func.func @rows(%m: memref<?x8xf32>, %w: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %n = memref.dim %m, %c0 : memref<?x8xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %z, %m[%i, %j] : memref<?x8xf32>
    }
  }
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %z, %w[%i, %j] : memref<8x8xf32>
    }
  }
  return
}

// -----

// A step or lower bound read at run time hints the loop too; a static
// loop that holds none is left as it was.
// CHECK-LABEL: func.func @step(
// CHECK:         } {loop_annotation = #loop_annotation}
// CHECK-LABEL: func.func @static(
// CHECK-NOT:     {loop_annotation
func.func @step(%m: memref<64xf32>, %s: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %s {
    memref.store %z, %m[%i] : memref<64xf32>
  }
  return
}

func.func @static(%m: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %z, %m[%i] : memref<64xf32>
  }
  return
}

// -----

// A small module keeps what LLVM's loop passes give: at the default bound
// (2000 ops) this one is not hinted.
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-hint-loops | FileCheck %s --check-prefix=SMALL
// SMALL-NOT:   {loop_annotation
// CHECK-LABEL: func.func @small(
// CHECK:         } {loop_annotation = #loop_annotation}
func.func @small(%m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %z, %m[%i] : memref<?xf32>
  }
  return
}

// -----

// In a cold static nest, each loop that holds another is hinted against
// unrolling, however deep; the innermost loops, however many, are not.
// CHECK-LABEL: func.func @static_nest(
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        scf.for
// CHECK-NEXT:          memref.store
// CHECK-NEXT:        }{{$}}
// CHECK-NEXT:      } {loop_annotation = #[[OUTER:.*]]}
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store
// CHECK-NEXT:      }{{$}}
// CHECK-NEXT:    } {loop_annotation = #[[OUTER]]}
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    }{{$}}
func.func @static_nest(%w: memref<8x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      scf.for %k = %c0 to %c8 step %c1 {
        memref.store %z, %w[%i, %j, %k] : memref<8x8x8xf32>
      }
    }
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %z, %w[%i, %j, %c0] : memref<8x8x8xf32>
    }
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %z, %w[%i, %c0, %c0] : memref<8x8x8xf32>
  }
  return
}

// -----

// COLD_OPS (10^4) counts each loop's body, its yield included, times the
// iterations of it and the loops around it, bounds and steps as they are:
// 64 x (77 x 2) + 64 x 2 = 9,984 ops is cold, hinted; 64 x (78 x 2) + 64 x 2
// = 10,112 is not: those copies may pay.
// CHECK-LABEL: func.func @cold_nest(
// CHECK:         } {loop_annotation = #{{.*}}}
// CHECK-LABEL: func.func @warm_nest(
// CHECK-NOT:     loop_annotation
func.func @cold_nest(%w: memref<128x80xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lb = arith.constant 3 : index
  %c80 = arith.constant 80 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c128 step %c2 {
    scf.for %j = %lb to %c80 step %c1 {
      memref.store %z, %w[%i, %j] : memref<128x80xf32>
    }
  }
  return
}

func.func @warm_nest(%w: memref<128x80xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lb = arith.constant 2 : index
  %c80 = arith.constant 80 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c128 step %c2 {
    scf.for %j = %lb to %c80 step %c1 {
      memref.store %z, %w[%i, %j] : memref<128x80xf32>
    }
  }
  return
}
