// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-lift-weights="threshold=4" --tosa-custom-bind-weights | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-lift-weights="threshold=4 weights=%t.safetensors manifest=%t.json" -o %t.lifted.mlir
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// RUN: FileCheck %s --check-prefix=LIFTED < %t.lifted.mlir
// RUN: tosa-custom-opt %t.lifted.mlir -split-input-file --tosa-custom-bind-weights="weights=%t.safetensors" | FileCheck %s --check-prefix=FILE

// Lift then bind gives the constants back (values kept in the module).
// CHECK-LABEL: module {
// CHECK:       func.func @forward(%[[X:.*]]: tensor<2x2xf32>) -> tensor<2x2xf32> {
// CHECK-DAG:     %[[C:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}>
// CHECK-DAG:     %[[W:.*]] = "tosa.const"() <{values = dense_resource<w.0> : tensor<2x2xf32>}>
// CHECK:         tosa.reshape %[[C]]
// CHECK:         tosa.add %[[X]], %[[W]]
// CHECK:       w.0: "0x040000000000803F000000400000404000008040"

// Lifted to a file: the module keeps no value; the manifest names every argument.
// LIFTED:      func.func @forward(%{{.*}}: tensor<2x2xf32> {tosa_custom.input = 0 : i64}, %{{.*}}: tensor<2x2xf32> {tosa_custom.weight = "w.0"}, %{{.*}}: tensor<4xf32> {tosa_custom.weight = "constant_0"})
// LIFTED-NOT:  weight_values
// LIFTED-NOT:  dialect_resources
// MANIFEST:      "format": "tosa_custom.weights",
// MANIFEST:      "entry": "forward",
// MANIFEST:      "inputs": [
// MANIFEST:        "argument": 0,
// MANIFEST-NEXT:   "position": 0,
// MANIFEST:      "weights": [
// MANIFEST:        "argument": 1,
// MANIFEST-NEXT:   "name": "w.0",
// MANIFEST-NEXT:   "shape": [
// MANIFEST-NEXT:    2,
// MANIFEST-NEXT:    2
// MANIFEST-NEXT:   ],
// MANIFEST-NEXT:   "dtype": "float32"
// MANIFEST:        "argument": 2,
// MANIFEST-NEXT:   "name": "constant_0",

// Bound from the file: the same values (as blobs named after the weights).
// FILE:        func.func @forward(%[[X:.*]]: tensor<2x2xf32>) -> tensor<2x2xf32> {
// FILE-DAG:      "tosa.const"() <{values = dense_resource<w.0> : tensor<2x2xf32>}>
// FILE-DAG:      "tosa.const"() <{values = dense_resource<constant_0> : tensor<4xf32>}>
// FILE:        constant_0: "0x040000000000803F000000400000404000008040"
// FILE:        w.0: "0x040000000000803F000000400000404000008040"
module {
  func.func @forward(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %w = "tosa.const"() <{values = dense_resource<w.0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %c = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %s = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %r = tosa.reshape %c, %s : (tensor<4xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
    %0 = tosa.add %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = tosa.add %0, %r : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %1 : tensor<2x2xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w.0: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
