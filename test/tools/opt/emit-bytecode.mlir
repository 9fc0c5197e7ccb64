// Bytecode out, bytecode in (a round trip), and the generic op form: what
// another MLIR version's tools read (README, "Handing the output to another tool").
// RUN: tosa-custom-opt %s --tosa-custom-narrow-f64 --emit-bytecode -o %t.mlirbc
// RUN: tosa-custom-opt %t.mlirbc | FileCheck %s
// RUN: cat %t.mlirbc | tosa-custom-opt - --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: not tosa-custom-opt %s --emit-bytecode -split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT

// CHECK-LABEL: func.func @clamp(
// CHECK:         tosa.clamp %{{.*}} {max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32}
// CHECK:         tosa.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xf16>
// GENERIC:       "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf16>, sym_name = "clamp"}>
// GENERIC:       "tosa.clamp"(%{{.*}}) <{max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32
// SPLIT:         error: --emit-bytecode writes one module
func.func @clamp(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.cast %0 : (tensor<4xf32>) -> tensor<4xf64>
  %2 = tosa.cast %1 : (tensor<4xf64>) -> tensor<4xf16>
  return %2 : tensor<4xf16>
}
