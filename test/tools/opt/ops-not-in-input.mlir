// An ops= entry that matches no op of the input is warned about, as
// compile() warns for backend_legal_ops; the run still succeeds.

// RUN: tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh,aten.gelu" 2>&1 >/dev/null | FileCheck %s
// CHECK: tosa-custom-opt: warning: ops= lists aten.gelu, but {{.*}}ops-not-in-input.mlir contains no such op
// CHECK-NOT: lists aten.tanh
// Spelled in a --pass-pipeline too:
// RUN: tosa-custom-opt %s --pass-pipeline='builtin.module(convert-torch-backend-legal-to-tosa-custom{ops=aten.layer_norm})' 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: warning: ops= lists aten.layer_norm, but
// Every op present, or ops=*: nothing to say.
// RUN: tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh" 2>&1 >/dev/null | not grep .
// RUN: tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=*" 2>&1 >/dev/null | not grep .

func.func @f(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}
