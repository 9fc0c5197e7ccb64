// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-find-custom-calls | FileCheck %s

// An analysis: a site the runtime can bind leaves the IR as it was.
// CHECK-LABEL: func.func @static(
// CHECK:         tosa.custom %arg0 {{.*}}operator_name = "torch.aten.tanh"
func.func @static(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.tanh"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A site it cannot bind is refused on the op's location.
func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{torch.aten.tanh has a result with a `?` dim and no "result_shapes" with one entry per result in its implementation_attrs (CONTRACT.md 15.2): the runtime cannot allocate it}}
  %0 = tosa.custom %a {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.tanh"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
