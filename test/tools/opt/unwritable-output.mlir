// An output file that cannot be written is a usage error naming it, exit 1,
// not a Python traceback (found by fuzz/targets/opt.py).

// RUN: not tosa-custom-opt %s -o %t.missing-dir/out.mlir 2>&1 | FileCheck %s
// CHECK: tosa-custom-opt: error: cannot write '{{.*}}missing-dir/out.mlir': No such file or directory
// CHECK-NOT: Traceback

func.func @f(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  return %arg0 : !torch.vtensor<[2],f32>
}
