// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-iree-dispatch-native="invocation=true" | FileCheck %s

// invocation=true: a public function holding sites takes the call's id as a
// last i64 argument (an empty dict in its arg_attrs), cast to index once and
// passed to every dispatch, whose kernel gets it as its last scalar.
// CHECK-LABEL: func.func @two_sites(
// CHECK-SAME:    %arg0: tensor<2x3xf32> {tosa_custom.name = "x"}, %[[ID:.*]]: i64) -> tensor<2x3xf32>
// CHECK:         %[[INV:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK:         "flow.dispatch.workgroups"(%arg0, %[[INV]]) ({
// CHECK:         ^bb0(%{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<2x3xf32>>, %[[A:.*]]: index, %{{.*}}: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2x3xf32>>):
// CHECK:           "iree_codegen.ukernel.generic"({{.*}}, %[[A]]) {operandSegmentSizes = array<i32: 1, 1, 5>, u_kernel_fn_name = "tosa_custom_site_1"}
// CHECK:         "flow.dispatch.workgroups"(%{{.*}}, %[[INV]]) ({
// CHECK:           u_kernel_fn_name = "tosa_custom_site_2"
// CHECK-NOT:     arith.index_cast
func.func @two_sites(%x: tensor<2x3xf32> {tosa_custom.name = "x"}) -> tensor<2x3xf32> {
  %0 = tosa.custom %x {domain_name = "acme", implementation_attrs = "", operator_name = "first", tosa_custom.iree_site = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tosa.custom %0 {domain_name = "acme", implementation_attrs = "", operator_name = "second", tosa_custom.iree_site = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A private function keeps its signature (its callers' would change too):
// its kernels get invocation 0.
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME:    %arg0: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         "flow.dispatch.workgroups"(%arg0, %[[ZERO]]) ({
func.func private @helper(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.custom %x {domain_name = "acme", implementation_attrs = "", operator_name = "first", tosa_custom.iree_site = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A function without sites is left as it is.
// CHECK-LABEL: func.func @no_sites(
// CHECK-SAME:    %arg0: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT:     arith.index_cast
func.func @no_sites(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.abs %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
