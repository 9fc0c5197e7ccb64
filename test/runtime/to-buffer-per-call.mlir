// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-to-buffer-per-call | FileCheck %s

// One view of a tensor read by two kernel calls (what CSE leaves): each call
// gets its own view right before it, so bufferization keeps the tensor's
// buffer until the last call has read it.
// CHECK-LABEL: func.func @shared(
// CHECK:         %[[V1:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK-NEXT:    call @k(%[[V1]], %{{.*}})
// CHECK:         %[[V2:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK-NEXT:    call @k(%[[V2]], %{{.*}})
// CHECK-NOT:     bufferization.to_buffer
func.func private @k(memref<3xi64, strided<[?], offset: ?>>, memref<3xi64>)
func.func @shared(%arg0: tensor<3xi64>) -> (memref<3xi64>, memref<3xi64>) {
  %view = bufferization.to_buffer %arg0 read_only : tensor<3xi64> to memref<3xi64, strided<[?], offset: ?>>
  %a = memref.alloc() : memref<3xi64>
  call @k(%view, %a) : (memref<3xi64, strided<[?], offset: ?>>, memref<3xi64>) -> ()
  %b = memref.alloc() : memref<3xi64>
  call @k(%view, %b) : (memref<3xi64, strided<[?], offset: ?>>, memref<3xi64>) -> ()
  return %a, %b : memref<3xi64>, memref<3xi64>
}
