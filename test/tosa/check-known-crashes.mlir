// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-check-known-crashes="stage=contract" | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-check-known-crashes="stage=contract backend-legal-ops=aten.nonzero" | FileCheck %s --check-prefix=KEPT

// Valid torch IR torch-mlir's lowering to the backend contract crashes the
// process on (a signal, not a diagnostic) is refused on the op before it runs
// (stage=tosa, the TorchToTosa crashes: check-known-crashes-tosa.mlir).

// torch-mlir's lowering to the backend contract crashes on aten.nonzero of a
// 0-d tensor (found by the OpInfo suite), unless the op is kept: torch-mlir
// then does not decompose it.
// KEPT-LABEL:  func.func @nonzero_0d(
// KEPT:          torch.aten.nonzero
func.func @nonzero_0d(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[?,0],si64> {
  // expected-error @+1 {{torch-mlir's decomposition of aten.nonzero crashes the process (a segmentation fault) on a 0-d input}}
  %0 = torch.aten.nonzero %arg0 : !torch.vtensor<[],f32> -> !torch.vtensor<[?,0],si64>
  return %0 : !torch.vtensor<[?,0],si64>
}

// -----

// Of rank 1 or more, it lowers (or fails with a diagnostic): untouched.
// CHECK-LABEL: func.func @nonzero_1d(
// KEPT-LABEL:  func.func @nonzero_1d(
func.func @nonzero_1d(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,1],si64> {
  %0 = torch.aten.nonzero %arg0 : !torch.vtensor<[4],f32> -> !torch.vtensor<[?,1],si64>
  return %0 : !torch.vtensor<[?,1],si64>
}
