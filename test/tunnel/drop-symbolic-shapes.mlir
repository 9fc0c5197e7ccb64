// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-drop-symbolic-shapes | FileCheck %s

// The size symbols and their bindings, which TorchToTosa refuses, are erased.
// CHECK-LABEL: func.func @drop(
// CHECK-NOT:     torch.symbolic_int
// CHECK-NOT:     torch.bind_symbolic_shape
// CHECK:         torch.aten.tanh
func.func @drop(%arg0: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (s0, 4)> : !torch.vtensor<[?,4],f32>
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
  torch.bind_symbolic_shape %0, [%s0], affine_map<()[s0] -> (s0, 4)> : !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}
