// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-outline-custom-ops | FileCheck %s

// A tosa.custom becomes a destination-passing call of a private extern: inputs
// as read-only strided views, outputs allocated by the caller and handed back
// as writable tensors.
// CHECK-LABEL: func.func private @tosa_custom_kernel_0(memref<2x3xf32, strided<[?, ?], offset: ?>>, memref<2x3xf32>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @one_custom(
// CHECK:         %[[VIEW:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK:         call @tosa_custom_kernel_0(%[[VIEW]], %[[OUT]])
// CHECK:         %[[BACK:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         return %[[BACK]]
// CHECK-NOT:     tosa.custom
func.func @one_custom(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "first"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A bound native kernel's context address is the leading i64 argument.
// CHECK-LABEL: func.func private @tosa_custom_kernel_0(i64, memref<4xf32, strided<[?], offset: ?>>, memref<4xf32>)
// CHECK-LABEL: func.func @native_context(
// CHECK:         %[[CTX:.*]] = arith.constant 1234 : i64
// CHECK:         call @tosa_custom_kernel_0(%[[CTX]],
func.func @native_context(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "n", tosa_custom.kernel_context = 1234 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Several sites: one extern each, numbered in order; multiple results.
// CHECK-LABEL: func.func private @tosa_custom_kernel_1(memref<2xf32, strided<[?], offset: ?>>, memref<2xf32>, memref<3xi32>)
// CHECK-LABEL: func.func private @tosa_custom_kernel_0(
// CHECK-LABEL: func.func @two_customs(
// CHECK:         call @tosa_custom_kernel_0(
// CHECK:         call @tosa_custom_kernel_1(
func.func @two_customs(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<3xi32>) {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "first"} : (tensor<2xf32>) -> tensor<2xf32>
  %1:2 = tosa.custom %0 {domain_name = "acme", implementation_attrs = "", operator_name = "second"} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<3xi32>)
  return %1#0, %1#1 : tensor<2xf32>, tensor<3xi32>
}

// -----

// A `?` result dim without result_shapes (CONTRACT.md 15.2): the runtime
// cannot allocate it, so the op is refused, nothing rewritten.
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @below {{dyn has a result with a `?` dim and no "result_shapes" with one entry per result in its implementation_attrs (CONTRACT.md 15.2): the runtime cannot allocate it}}
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "dyn"} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// With result_shapes, each `?` result dim is allocated at its expression's
// size, computed before the call from the operands' dims and values
// (floor modulo as a - (a // b) * b); inputs are passed at their own sizes.
// CHECK-LABEL: func.func @sized(
// CHECK-SAME:    %[[A:.*]]: tensor<?x4xf32>, %[[N:.*]]: tensor<i64>
// CHECK:         %[[A_BUF:.*]] = bufferization.to_buffer %[[A]] read_only : tensor<?x4xf32> to memref<?x4xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[D0:.*]] = tensor.dim %[[A]], %c0
// CHECK:         %[[ROWS:.*]] = arith.muli %c2, %[[D0]] : index
// CHECK:         %[[OUT0:.*]] = memref.alloc(%[[ROWS]]) : memref<?x4xf32>
// CHECK:         %[[V:.*]] = tensor.extract %[[N]][] : tensor<i64>
// CHECK:         %[[VI:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK:         %[[Q:.*]] = arith.floordivsi %[[VI]], %{{.*}} : index
// CHECK:         %[[OUT1:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         call @tosa_custom_kernel_0(%[[A_BUF]], %{{.*}}, %[[OUT0]], %[[OUT1]])
func.func @sized(%a: tensor<?x4xf32>, %n: tensor<i64>) -> (tensor<?x4xf32>, tensor<?xf32>) {
  %0:2 = tosa.custom %a, %n {domain_name = "acme", implementation_attrs = "{\22result_shapes\22: [[\222*dim(0,0)\22, 4], [\22value(1)%3\22]]}", operator_name = "sized"} : (tensor<?x4xf32>, tensor<i64>) -> (tensor<?x4xf32>, tensor<?xf32>)
  return %0#0, %0#1 : tensor<?x4xf32>, tensor<?xf32>
}
