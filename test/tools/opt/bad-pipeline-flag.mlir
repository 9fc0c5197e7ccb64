// A --pass-pipeline= with unbalanced brackets is a usage error naming the
// flag, exit 1, not a Python traceback (found by fuzz/targets/opt.py).

// RUN: not tosa-custom-opt %s --pass-pipeline='builtin.module(' 2>&1 | FileCheck %s --check-prefix=OPEN
// OPEN: tosa-custom-opt: error: --pass-pipeline=builtin.module(: unbalanced brackets or quotes in pass pipeline
// OPEN-NOT: Traceback

// RUN: not tosa-custom-opt %s --pass-pipeline=')' 2>&1 | FileCheck %s --check-prefix=CLOSE
// CLOSE: tosa-custom-opt: error: --pass-pipeline=): unbalanced ')' in pass pipeline at column 1
// CLOSE-NOT: Traceback

func.func @f(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  return %arg0 : !torch.vtensor<[2],f32>
}
