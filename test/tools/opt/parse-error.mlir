// A parse error: reported with the input file name, line and column; exit 1.
// With --verify-diagnostics, an expected-error on that line makes it a pass.

// RUN: not tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh" 2>&1 | FileCheck %s
// RUN: tosa-custom-opt %s -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh"

// CHECK: parse-error.mlir:[[# @LINE + 5]]:8: error: custom op 'torch.aten.no_such_op' is unknown
// CHECK-NOT: module

func.func @f(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  // expected-error@+1 {{custom op 'torch.aten.no_such_op' is unknown}}
  %0 = torch.aten.no_such_op %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}
