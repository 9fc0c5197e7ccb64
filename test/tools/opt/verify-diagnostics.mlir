// --verify-diagnostics checks expected-* annotations instead of printing the
// diagnostics: exit 0 when every diagnostic is expected and every expectation
// is met, otherwise exit 1 naming each mismatch by file and line. The forms
// @+N, @-N, @above, @below and the same line are understood.

// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=aten.size" | FileCheck %s
// With strict=true the warnings become errors: each error is unexpected and
// each expected warning is missing.
// RUN: not tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=aten.size strict=true" 2>&1 | FileCheck %s --check-prefix=MISMATCH

// CHECK-LABEL: func.func @plus_one(
func.func @plus_one(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  %int1 = torch.constant.int 1
  // MISMATCH:      verify-diagnostics.mlir:[[# @LINE + 3]]: unexpected error: torch.aten.size left unconverted [non-tensor-result]: result #0 of torch.aten.size has type !torch.list<int>
  // MISMATCH-NEXT: verify-diagnostics.mlir:[[# @LINE + 1]]: expected warning "torch.aten.size left unconverted [non-tensor-result]" on line [[# @LINE + 2]] was not produced
  // expected-warning@+1 {{torch.aten.size left unconverted [non-tensor-result]}}
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  return %0 : !torch.list<int>
}

// -----

// CHECK-LABEL: func.func @same_line(
func.func @same_line(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  %int1 = torch.constant.int 1
  // MISMATCH:      verify-diagnostics.mlir:[[# @LINE + 2]]: unexpected error
  // MISMATCH-NEXT: verify-diagnostics.mlir:[[# @LINE + 1]]: expected warning "left unconverted" on line [[# @LINE + 1]] was not produced
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int> // expected-warning {{left unconverted}}
  return %0 : !torch.list<int>
}

// -----

// CHECK-LABEL: func.func @above(
func.func @above(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  %int1 = torch.constant.int 1
  // MISMATCH:      verify-diagnostics.mlir:[[# @LINE + 2]]: unexpected error
  // MISMATCH-NEXT: verify-diagnostics.mlir:[[# @LINE + 2]]: expected warning "result #0 of torch.aten.size has type !torch.list<int>" on line [[# @LINE + 1]] was not produced
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  // expected-warning@above {{result #0 of torch.aten.size has type !torch.list<int>}}
  return %0 : !torch.list<int>
}

// -----

// CHECK-LABEL: func.func @below(
func.func @below(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  %int1 = torch.constant.int 1
  // MISMATCH:      verify-diagnostics.mlir:[[# @LINE + 3]]: unexpected error
  // MISMATCH-NEXT: verify-diagnostics.mlir:[[# @LINE + 1]]: expected warning "[non-tensor-result]" on line [[# @LINE + 2]] was not produced
  // expected-warning@below {{[non-tensor-result]}}
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  return %0 : !torch.list<int>
}

// -----

// CHECK-LABEL: func.func @minus_one(
func.func @minus_one(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  %int1 = torch.constant.int 1
  // MISMATCH:      verify-diagnostics.mlir:[[# @LINE + 2]]: unexpected error
  // MISMATCH-NEXT: verify-diagnostics.mlir:[[# @LINE + 2]]: expected warning "torch.aten.size" on line [[# @LINE + 1]] was not produced
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  // expected-warning@-1 {{torch.aten.size}}
  return %0 : !torch.list<int>
}
// MISMATCH-NOT: module
