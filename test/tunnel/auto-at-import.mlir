// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-auto-at-import="not-conformant=aten.argmin wrong-lowering=torch.aten.tanh#1" --convert-torch-backend-legal-to-tosa-custom | FileCheck %s

// Before torch-mlir's pipeline, auto mode marks what it cannot take as
// PyTorch wrote it: every torch.operator (an op torch-mlir has no definition
// for), and the ops named per category (OP#N: only its N-th instance); the
// conversion tunnels them.

// CHECK-LABEL: func.func @at_import(
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.median", tosa_custom.tunneled = "no-tosa-lowering"}
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.argmin", tosa_custom.tunneled = "not-conformant"}
// CHECK:         torch.aten.tanh %arg0
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.tanh", tosa_custom.tunneled = "wrong-lowering"}
func.func @at_import(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[3,4],si64>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[3,4],f32>) {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %0 = torch.operator "torch.aten.median"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[],f32>
  %1 = torch.aten.argmin %arg1, %int1, %false : !torch.vtensor<[3,4],si64>, !torch.int, !torch.bool -> !torch.vtensor<[3],si64>
  %2 = torch.aten.tanh %arg0 : !torch.vtensor<[3,4],f32> -> !torch.vtensor<[3,4],f32>
  %3 = torch.aten.tanh %2 : !torch.vtensor<[3,4],f32> -> !torch.vtensor<[3,4],f32>
  return %0, %1, %3 : !torch.vtensor<[],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[3,4],f32>
}
