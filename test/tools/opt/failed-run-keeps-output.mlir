// A failed run leaves -o's file as it was (it used to truncate it to 0
// bytes); a successful one replaces it whole, through a temporary file.

// RUN: rm -rf %t && mkdir -p %t && echo "previous output" > %t/out.mlir
// RUN: not tosa-custom-opt %s --no-such-pass -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=KEPT --input-file=%t/out.mlir
// An input that does not parse:
// RUN: echo "not mlir {" | not tosa-custom-opt - -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=KEPT --input-file=%t/out.mlir
// KEPT: previous output
// RUN: tosa-custom-opt %s -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=REPLACED --input-file=%t/out.mlir
// REPLACED-NOT: previous output
// REPLACED: func.func @f
// No temporary file is left beside it:
// RUN: ls -a %t | FileCheck %s --check-prefix=FILES
// FILES-NOT: .tmp

func.func @f(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %1 : !torch.vtensor<[2,8],f32>
}
