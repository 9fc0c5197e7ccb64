// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-offer-result-buffers | FileCheck %s
// A public function returning memrefs takes one more argument per result, a
// buffer the caller offers; a returned allocation becomes that buffer when
// it is not null and has the allocation's sizes, else it is allocated as
// before.

// CHECK-LABEL: func.func @rows(
// CHECK-SAME:      %[[X:.*]]: memref<?x4xf32>, %[[OFFER:.*]]: memref<?x4xf32>) -> memref<?x4xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[N:.*]] = memref.dim %[[X]], %[[C0]]
// CHECK:         %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[OFFER]]
// CHECK:         %[[NOTNULL:.*]] = arith.cmpi ne, %[[P]]
// CHECK:         %[[D0:.*]] = memref.dim %[[OFFER]], %{{.*}}
// CHECK:         arith.cmpi eq, %[[D0]], %[[N]]
// CHECK:         %[[D1:.*]] = memref.dim %[[OFFER]], %{{.*}}
// CHECK:         arith.cmpi eq, %[[D1]], %{{.*}}
// CHECK:         %[[OK:.*]] = arith.andi
// CHECK:         %[[BUF:.*]] = scf.if %[[OK]] -> (memref<?x4xf32>) {
// CHECK:           scf.yield %[[OFFER]]
// CHECK:         } else {
// CHECK:           %[[FRESH:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x4xf32>
// CHECK:           scf.yield %[[FRESH]]
// CHECK:         }
// CHECK:         memref.copy %[[X]], %[[BUF]]
// CHECK:         return %[[BUF]]
func.func @rows(%x: memref<?x4xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?x4xf32>
  memref.copy %x, %a : memref<?x4xf32> to memref<?x4xf32>
  return %a : memref<?x4xf32>
}

// -----

// A result that is no allocation of the function's own (an argument) gets
// its argument all the same (one per result, as the caller passes them),
// unused; an allocation returned twice is left alone (both results would
// share the offer of one).
// CHECK-LABEL: func.func @not_taken(
// CHECK-SAME:      %[[X:.*]]: memref<?xf32>, %[[N:.*]]: index, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>)
// CHECK-NOT:     scf.if
// CHECK:         %[[A:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK:         return %[[X]], %[[A]], %[[A]]
func.func @not_taken(%x: memref<?xf32>, %n: index) -> (memref<?xf32>, memref<?xf32>, memref<?xf32>) {
  %a = memref.alloc(%n) : memref<?xf32>
  return %x, %a, %a : memref<?xf32>, memref<?xf32>, memref<?xf32>
}

// -----

// A private function is left alone.
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME:      %{{.*}}: index) -> memref<?xf32>
func.func private @helper(%n: index) -> memref<?xf32> {
  %a = memref.alloc(%n) : memref<?xf32>
  return %a : memref<?xf32>
}
