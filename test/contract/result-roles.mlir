// RUN: tosa-custom-opt %s --pass-pipeline='builtin.module(tosa-custom-tensorize-scalar-boundary, torchdynamo-export-to-torch-backend-pipeline, torch-backend-to-tosa-backend-pipeline, tosa-custom-tensorize-builtin-scalar-boundary)' | FileCheck %s

// What compile() writes at import for a model that adds y into its input x,
// counts its calls in buffer `n` and returns {"a": x * n, "b": (x.shape[0],)}
// (CONTRACT.md §12): each result's role and the output tree, next to the
// state argument and its initial value. torch-mlir's lowering to TOSA keeps
// them all, so the runtime and a backend read them from the final module.

// CHECK:       module attributes {tosa_custom.weight_values = {n = dense<0.000000e+00> : tensor<f32>}}
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %{{.*}}: tensor<3xf32> {tosa_custom.input = 0 : i64}
// CHECK-SAME:    %{{.*}}: tensor<3xf32> {tosa_custom.input = 1 : i64}
// CHECK-SAME:    %{{.*}}: tensor<f32> {tosa_custom.weight = "n"}
// CHECK-SAME:    -> (tensor<f32> {tosa_custom.mutates_buffer = "n"},
// CHECK-SAME:        tensor<3xf32> {tosa_custom.mutates_input = 0 : i64},
// CHECK-SAME:        tensor<3xf32> {tosa_custom.output = 0 : i64},
// CHECK-SAME:        tensor<i64> {tosa_custom.output = 1 : i64, tosa_custom.scalar = "int"})
// CHECK-SAME:    attributes {tosa_custom.output_tree = "{\22type\22:\22dict\22,\22keys\22:[\22a\22,\22b\22],\22children\22:[\22*\22,{\22type\22:\22tuple\22,\22children\22:[\22*\22]}]}"}
module attributes {tosa_custom.weight_values = {n = dense<0.000000e+00> : tensor<f32>}} {
  func.func @forward(%arg0: !torch.vtensor<[3],f32> {tosa_custom.input = 0 : i64}, %arg1: !torch.vtensor<[3],f32> {tosa_custom.input = 1 : i64}, %arg2: !torch.vtensor<[],f32> {tosa_custom.weight = "n"}) -> (!torch.vtensor<[],f32> {tosa_custom.mutates_buffer = "n"}, !torch.vtensor<[3],f32> {tosa_custom.mutates_input = 0 : i64}, !torch.vtensor<[3],f32> {tosa_custom.output = 0 : i64}, !torch.int {tosa_custom.output = 1 : i64}) attributes {tosa_custom.output_tree = "{\22type\22:\22dict\22,\22keys\22:[\22a\22,\22b\22],\22children\22:[\22*\22,{\22type\22:\22tuple\22,\22children\22:[\22*\22]}]}"} {
    %int1 = torch.constant.int 1
    %0 = torch.aten.add.Tensor %arg0, %arg1, %int1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
    %1 = torch.aten.add.Scalar %arg2, %int1, %int1 : !torch.vtensor<[],f32>, !torch.int, !torch.int -> !torch.vtensor<[],f32>
    %2 = torch.aten.mul.Tensor %0, %1 : !torch.vtensor<[3],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[3],f32>
    %int3 = torch.constant.int 3
    return %1, %0, %2, %int3 : !torch.vtensor<[],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int
  }
}
