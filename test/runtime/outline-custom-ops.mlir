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

// The runtime runs static shapes only: refused on the op, nothing rewritten.
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @below {{dyn has a dynamic shape tensor<?xf32>; the runtime needs static shapes}}
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "dyn"} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
