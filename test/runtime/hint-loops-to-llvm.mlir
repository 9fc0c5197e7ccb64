// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(tosa-custom-hint-loops{above=0}, convert-scf-to-cf, convert-to-llvm)" | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --pass-pipeline="builtin.module(tosa-custom-hint-loops{above=0}, convert-scf-to-cf, convert-to-llvm)" -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The hint reaches the latch llvm.br as its own loop_annotation (a property:
// what the translation to LLVM IR reads as llvm.loop metadata) through
// upstream's lowering alone: convert-scf-to-cf copies it onto the latch
// branch, convert-cf-to-llvm keeps it; the loop's entry branch has none.
// CHECK:       #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK:       #[[HINT:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]], isVectorized = true>
// CHECK-LABEL: llvm.func @rows(
// CHECK:         llvm.br ^bb1(%{{.*}} : i64){{$}}
// CHECK:         llvm.cond_br %{{.*}}, ^bb2, ^bb3{{$}}
// CHECK:         llvm.br ^bb1(%{{.*}} : i64) {loop_annotation = #[[HINT]]}
// CHECK-NOT:     loop_annotation
// GENERIC:       "llvm.br"(%{{.*}})[^bb1] <{loop_annotation = #{{.*}}}>
func.func @rows(%m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %z, %m[%i] : memref<?xf32>
  }
  return
}
