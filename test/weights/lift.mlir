// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-lift-weights="threshold=4" | FileCheck %s

// Lift: dense_resource constants always, dense constants of >= threshold
// elements unless splat; the arguments are appended after the inputs, which
// get their positions; the values stay in the module (tosa_custom.weight_values).

// CHECK-LABEL: module attributes {tosa_custom.weight_values = {constant_0 = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>, w.0 = dense_resource<w.0> : tensor<2x2xf32>}}
// CHECK:       func.func @forward(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xf32> {tosa_custom.input = 0 : i64},
// CHECK-SAME:      %[[Y:.*]]: tensor<4xf32> {tosa_custom.input = 1 : i64},
// CHECK-SAME:      %[[W:.*]]: tensor<2x2xf32> {tosa_custom.weight = "w.0"},
// CHECK-SAME:      %[[C:.*]]: tensor<4xf32> {tosa_custom.weight = "constant_0"})
// Small and splat constants stay.
// CHECK-DAG:     "tosa.const"() <{values = dense<[5.000000e+00, 6.000000e+00]> : tensor<2xf32>}>
// CHECK-DAG:     "tosa.const"() <{values = dense<0.000000e+00> : tensor<16xf32>}>
// The same value used twice is one argument.
// CHECK:         tosa.add %[[X]], %[[W]]
// CHECK:         tosa.add %{{.*}}, %[[W]]
// CHECK:         tosa.add %[[Y]], %[[C]]
// CHECK:       dialect_resources
// CHECK:         w.0: "0x04000000
module {
  func.func @forward(%x: tensor<2x2xf32>, %y: tensor<4xf32>) -> (tensor<2x2xf32>, tensor<4xf32>, tensor<2xf32>, tensor<16xf32>) {
    %w = "tosa.const"() <{values = dense_resource<w.0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %w2 = "tosa.const"() <{values = dense_resource<w.0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %c = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %small = "tosa.const"() <{values = dense<[5.0, 6.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %splat = "tosa.const"() <{values = dense<0.0> : tensor<16xf32>}> : () -> tensor<16xf32>
    %0 = tosa.add %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = tosa.add %0, %w2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %2 = tosa.add %y, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %1, %2, %small, %splat : tensor<2x2xf32>, tensor<4xf32>, tensor<2xf32>, tensor<16xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w.0: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// torch IR: a torch.vtensor.literal becomes a !torch.vtensor argument; only
// the public function with a body is the entry.

// CHECK-LABEL: module attributes {tosa_custom.weight_values = {torch_tensor_4_torch.int64 = dense_resource<torch_tensor_4_torch.int64> : tensor<4xsi64>}}
// CHECK:       func.func private @helper
// CHECK:       func.func @main(%[[A:.*]]: !torch.vtensor<[4],si64> {tosa_custom.input = 0 : i64}, %[[L:.*]]: !torch.vtensor<[4],si64> {tosa_custom.weight = "torch_tensor_4_torch.int64"})
// CHECK:         torch.aten.add.Tensor %[[A]], %[[L]]
module {
  func.func private @helper(%a: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64>
  func.func @main(%a: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64> {
    %l = torch.vtensor.literal(dense_resource<torch_tensor_4_torch.int64> : tensor<4xsi64>) : !torch.vtensor<[4],si64>
    %int1 = torch.constant.int 1
    %0 = torch.aten.add.Tensor %a, %l, %int1 : !torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>, !torch.int -> !torch.vtensor<[4],si64>
    return %0 : !torch.vtensor<[4],si64>
  }
}
{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_torch.int64: "0x080000000000000000000000010000000000000002000000000000000300000000000000"
    }
  }
#-}
