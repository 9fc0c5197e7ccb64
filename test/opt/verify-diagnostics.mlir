// --verify-diagnostics checks expected-* annotations instead of printing the
// diagnostics: exit 0 when every diagnostic is expected and every expectation
// met, otherwise 1 with the mismatches named by file and line.

// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=aten.size" | FileCheck %s
// With strict=true the warnings become errors: each expected warning is
// missing, and each error is unexpected.
// RUN: not tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=aten.size strict=true" 2>&1 | FileCheck %s --check-prefix=MISMATCH

// CHECK-LABEL: func.func @plus_one(
// CHECK-LABEL: func.func @same_line(
// CHECK-LABEL: func.func @above(
// CHECK-LABEL: func.func @below(
// CHECK-LABEL: func.func @minus_one(

// MISMATCH-DAG: verify-diagnostics.mlir:[[# @LINE + 8]]: unexpected error: torch.aten.size.int left unconverted [non-tensor-result]
// MISMATCH-DAG: verify-diagnostics.mlir:[[# @LINE + 6]]: expected warning "torch.aten.size.int left unconverted [non-tensor-result]" on line [[# @LINE + 7]] was not produced
// MISMATCH-DAG: verify-diagnostics.mlir:[[# @LINE + 14]]: unexpected error: torch.aten.size.int left unconverted
// MISMATCH-DAG: verify-diagnostics.mlir:[[# @LINE + 13]]: expected warning "left unconverted" on line [[# @LINE + 13]] was not produced
// MISMATCH-NOT: module

func.func @plus_one(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.int {
  %int1 = torch.constant.int 1
  // expected-warning@+1 {{torch.aten.size.int left unconverted [non-tensor-result]}}
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.int
  return %0 : !torch.int
}

// -----

func.func @same_line(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.int {
  %int1 = torch.constant.int 1
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.int // expected-warning {{left unconverted}}
  return %0 : !torch.int
}

// -----

func.func @above(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.int {
  %int1 = torch.constant.int 1
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.int
  // expected-warning@above {{result #0 of torch.aten.size.int has type !torch.int}}
  return %0 : !torch.int
}

// -----

func.func @below(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.int {
  %int1 = torch.constant.int 1
  // expected-warning@below {{[non-tensor-result]}}
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.int
  return %0 : !torch.int
}

// -----

func.func @minus_one(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.int {
  %int1 = torch.constant.int 1
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.int
  // expected-warning@-1 {{torch.aten.size.int}}
  return %0 : !torch.int
}
