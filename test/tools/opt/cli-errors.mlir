// Command-line mistakes: a message on stderr, a non-zero exit, no output.

// RUN: not tosa-custom-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN-PASS
// UNKNOWN-PASS: tosa-custom-opt: error: 'no-such-pass' does not refer to a registered pass or pass pipeline

// RUN: not tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh encoding=yaml" 2>&1 | FileCheck %s --check-prefix=BAD-ENCODING
// BAD-ENCODING: tosa-custom-opt: error: unknown encoding 'yaml': expected one of json, const
// BAD-ENCODING-NOT: module

// A misspelt op is refused with suggestions, not silently ignored.
// RUN: not tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.gelux" 2>&1 | FileCheck %s --check-prefix=BAD-OP
// BAD-OP: tosa-custom-opt: error: unknown op 'aten.gelux': PyTorch has no torch.ops.aten.gelux; did you mean aten.gelu
// BAD-OP-NOT: module

// Our passes run on the module: nesting one in an op pipeline is refused.
// RUN: not tosa-custom-opt %s --pass-pipeline='builtin.module(func.func(convert-torch-backend-legal-to-tosa-custom{ops=aten.tanh}))' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: tosa-custom-opt: error: 'func.func(convert-torch-backend-legal-to-tosa-custom{ops=aten.tanh})': our Python passes run on the module; put them at the top level of the pipeline, not nested in an op pipeline
// NESTED-NOT: module

func.func @f(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}
