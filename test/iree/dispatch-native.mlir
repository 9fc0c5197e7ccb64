// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-iree-dispatch-native="workgroups=8 grain=4" | FileCheck %s

// A layer_norm bound to site 7, split along its two leading dims (the weight
// and bias whole): an isolated dispatch with 2 x 4 workgroups (y = dim 0, x =
// dim 1; 8 at most, each of at least 4 output elements of 2x4x16), each
// slicing the input and the output by its workgroup ids with dynamic sizes
// and calling the plugin's symbol for the site with every operand's sizes,
// then the invocation id (0: the pass was not asked for the argument).
// CHECK-LABEL: func.func @layer_norm$split(
// CHECK-DAG:     %[[E0:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[E1:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[NONE:.*]] = arith.constant 0 : index
// CHECK:         %[[R:.*]] = "flow.dispatch.workgroups"(%arg0, %arg1, %arg2, %[[E0]], %[[E1]], %[[NONE]]) ({
// CHECK:         ^bb0(%[[X:.*]]: !iree_tensor_ext.dispatch.tensor<readonly:tensor<2x4x16xf32>>, %[[W:.*]]: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16xf32>>, %{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16xf32>>, %[[N0:.*]]: index, %[[N1:.*]]: index, %[[INV:.*]]: index, %[[OUT:.*]]: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2x4x16xf32>>):
// CHECK:           %[[ID0:.*]] = "flow.dispatch.workgroup.id"() {dimension = 1 : index}
// CHECK:           %[[OFF0:.*]] = arith.muli %[[ID0]], %{{.*}}
// CHECK:           %[[REST0:.*]] = arith.subi %[[N0]], %[[OFF0]]
// CHECK:           %[[SIZE0:.*]] = arith.minsi %{{.*}}, %[[REST0]]
// CHECK:           "flow.dispatch.workgroup.id"() {dimension = 0 : index}
// CHECK:           %[[SLICE:.*]] = "iree_tensor_ext.dispatch.tensor.load"(%[[X]], %[[OFF0]], %{{.*}}, %[[SIZE0]], %{{.*}}) {{.*}}static_offsets = array<i64: -9223372036854775808, -9223372036854775808, 0>, static_sizes = array<i64: -9223372036854775808, -9223372036854775808, 16>{{.*}} -> tensor<?x?x16xf32>
// CHECK:           "iree_tensor_ext.dispatch.tensor.load"(%[[W]]) {{.*}}static_sizes = array<i64: 16>{{.*}} -> tensor<16xf32>
// CHECK:           %[[EMPTY:.*]] = tensor.empty(%[[SIZE0]], %{{.*}}) : tensor<?x?x16xf32>
// CHECK:           %[[K:.*]] = "iree_codegen.ukernel.generic"(%[[SLICE]], %{{.*}}, %{{.*}}, %[[EMPTY]], %[[SIZE0]], {{.*}}, %[[INV]]) {operandSegmentSizes = array<i32: 3, 1, 9>, u_kernel_fn_name = "tosa_custom_site_7"}
// CHECK:           "iree_tensor_ext.dispatch.tensor.store"(%[[K]], %[[OUT]], %[[OFF0]],
// CHECK:           "flow.return"() : () -> ()
// CHECK:         }, {
// CHECK:           %[[C4:.*]] = arith.constant 4 : index
// CHECK:           %[[C2:.*]] = arith.constant 2 : index
// CHECK:           %[[C1:.*]] = arith.constant 1 : index
// CHECK:           "flow.return"(%[[C4]], %[[C2]], %[[C1]])
// CHECK:         }) {operandSegmentSizes = array<i32: 0, 6, 0, 0>, tied_operands = [-1 : index]}
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[R]]
func.func @layer_norm$split(%x: tensor<2x4x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %0 = tosa.custom %x, %w, %b {domain_name = "torch_mlir", implementation_attrs = "", operator_name = "torch.aten.layer_norm",
         tosa_custom.iree_site = 7 : i64,
         tosa_custom.iree_split = [array<i64: 0, 1>, array<i64: -1, -1>, array<i64: -1, -1>, array<i64: 0, 1>]}
       : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// No split declared (a version-1 kernel): one workgroup, the whole op.
// CHECK-LABEL: func.func @whole(
// CHECK:         "flow.dispatch.workgroups"(%arg0, %{{.*}}) ({
// CHECK-NOT:     "flow.dispatch.workgroup.id"
// CHECK:         "iree_tensor_ext.dispatch.tensor.load"(%{{.*}}) {{.*}}static_sizes = array<i64: 2, 3>{{.*}} -> tensor<2x3xf32>
// CHECK:         "iree_codegen.ukernel.generic"({{.*}}) {operandSegmentSizes = array<i32: 1, 1, 5>, u_kernel_fn_name = "tosa_custom_site_3"}
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         %[[ONE1:.*]] = arith.constant 1 : index
// CHECK:         %[[ONE2:.*]] = arith.constant 1 : index
// CHECK:         "flow.return"(%[[ONE]], %[[ONE1]], %[[ONE2]])
// CHECK:         }) {operandSegmentSizes = array<i32: 0, 2, 0, 0>
func.func @whole(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.custom %x {domain_name = "old", implementation_attrs = "", operator_name = "twice_relu", tosa_custom.iree_site = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// An op without a site (no native kernel bound) is left to IREE's TOSA input.
// CHECK-LABEL: func.func @unbound(
// CHECK:         tosa.custom
// CHECK-NOT:     flow.dispatch.workgroups
func.func @unbound(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.custom %x {domain_name = "acme", implementation_attrs = "", operator_name = "first"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @below {{the IREE dispatch of a native kernel needs static shapes}}
  %0 = tosa.custom %x {domain_name = "acme", implementation_attrs = "", operator_name = "first", tosa_custom.iree_site = 1 : i64} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
