// Regression: single-dash pass flags are accepted (-split-input-file, -canonicalize),
// but one whose name starts with "o" was taken as -oFILE, writing
// the module to a file named "utline-shape-computation", prints nothing, runs
// no pass and exits 0 (mlir-opt would run --outline-shape-computation).
// RUN: rm -rf %t && mkdir -p %t && cd %t && tosa-custom-opt %s -outline-shape-computation | FileCheck %s
// RUN: not ls %t/utline-shape-computation
// CHECK: func.func @f(

func.func @f(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}
