// Regression: mlir-opt allows blanks between `expected-warning` and `@+1` (torch-mlir
// writes `// expected-error @+1 {{...}}`), and --verify-diagnostics once did not
// recognise that form (opt._EXPECTED wants `@` right after the severity) and
// silently ignores the annotation: the unproduced warning below passes
// unnoticed (exit 0) instead of failing the check.
// RUN: not tosa-custom-opt %s -verify-diagnostics 2>&1 | FileCheck %s
// CHECK: expected warning "this warning is never emitted" on line [[# @LINE + 4]] was not produced

func.func @f(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  // expected-warning @+1 {{this warning is never emitted}}
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}
