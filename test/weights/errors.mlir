// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-bind-weights
// RUN: not tosa-custom-opt %s --tosa-custom-lift-weights="threshold=x" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not tosa-custom-opt %s --tosa-custom-lift-weights="limit=3" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tosa-custom-opt %s -split-input-file --tosa-custom-bind-weights="weights=%t.missing.safetensors" 2>&1 | FileCheck %s --check-prefix=NOFILE

// OPTION: threshold= takes a number of elements, not 'x'
// UNKNOWN: unknown option 'limit' for tosa-custom-lift-weights: expected threshold=, entry=, weights=, manifest=
// NOFILE: tosa-custom-bind-weights: no weights file '{{.*}}missing.safetensors'

// A weight argument with no value anywhere: bind names it, on the function.
module attributes {tosa_custom.weight_values = {b = dense<[1.0, 2.0]> : tensor<2xf32>}} {
  // expected-error@+1 {{tosa-custom-bind-weights: cannot bind the weights of @forward from the module attribute tosa_custom.weight_values: missing 'a' ([2] float32)}}
  func.func @forward(%x: tensor<2xf32> {tosa_custom.input = 0 : i64}, %a: tensor<2xf32> {tosa_custom.weight = "a"}, %b: tensor<2xf32> {tosa_custom.weight = "b"}) -> tensor<2xf32> {
    %0 = tosa.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = tosa.add %0, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}

// -----

// The same name on two arguments.
// expected-error@+1 {{tosa-custom-bind-weights: two arguments of @forward are the weight 'a'}}
module {
  func.func @forward(%a: tensor<2xf32> {tosa_custom.weight = "a"}, %b: tensor<2xf32> {tosa_custom.weight = "a"}) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
}

// -----

// No entry function to choose.
// expected-error@+1 {{tosa-custom-bind-weights: expected one public function with a body, found ['f', 'g']; name the entry function}}
module {
  func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
  func.func @g(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
}
