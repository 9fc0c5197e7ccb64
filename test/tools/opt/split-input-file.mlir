// --split-input-file: each chunk is parsed and converted on its own (both
// define @same), outputs are joined by `// -----`, and diagnostics name the
// input file and the line in it (not in the chunk).

// RUN: tosa-custom-opt %s -split-input-file --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh,aten.size" 2>&1 | FileCheck %s
// RUN: not tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh,aten.size" 2>&1 | FileCheck %s --check-prefix=NOSPLIT

// Diagnostics are printed as they happen, before the output.
// CHECK:       {{^}}{{.*}}split-input-file.mlir:[[# @LINE + 34]]:8: warning: torch.aten.size left unconverted [non-tensor-result]: result #0 of torch.aten.size has type !torch.list<int>
// CHECK-NEXT:  {{^}}module {
// CHECK-NEXT:    func.func @same(
// CHECK:           tosa.custom {{.*}} operator_name = "torch.aten.tanh"
// CHECK:       {{^}}}
// CHECK-NEXT:  {{^}}// -----
// CHECK-NEXT:  {{^}}module {
// CHECK-NEXT:    func.func @same(
// CHECK:           tosa.custom {{.*}} operator_name = "torch.aten.tanh"
// CHECK:       {{^}}}
// CHECK-NEXT:  {{^}}// -----
// CHECK-NEXT:  {{^}}module {
// CHECK-NEXT:    func.func @size(
// CHECK:           torch.aten.size 

// Without the flag the file is one module, and @same is defined twice.
// NOSPLIT: split-input-file.mlir:[[# @LINE + 9]]:1: error: redefinition of symbol named 'same'

func.func @same(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

func.func @same(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

func.func @size(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  return %0 : !torch.list<int>
}
