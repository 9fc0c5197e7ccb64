// A string left open at the very end of the input (no newline after it), in
// the file metadata: MLIR's lexer stepped past the end of the buffer and the
// resource parser, lexing on after the error, crashed the process (fuzz: opt,
// seed 734959, case 280, a truncated lit file). Now the error is reported on
// its line and column, by each parse of the input (the ops= check parses too).

// RUN: not tosa-custom-opt %s 2>&1 | FileCheck %s
// RUN: not tosa-custom-opt %s -split-input-file --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh" 2>&1 | FileCheck %s
// RUN: not tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh" --canonicalize 2>&1 | FileCheck %s

// CHECK: unterminated-string-at-end.mlir:[[# @LINE + 10]]:14: error: expected '"' in string literal
// CHECK: unterminated-string-at-end.mlir:[[# @LINE + 9]]:14: error: expected hex string blob for key 'blob'

func.func @f(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "