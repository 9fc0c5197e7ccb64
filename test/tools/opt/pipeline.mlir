// Our pass flag mixed with torch-mlir's own passes: they run in command-line
// order, and the TOSA backend pipeline keeps the tosa.custom ops while it
// lowers everything else (aten.add.Tensor -> tosa.add).

// RUN: tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.gelu,aten.clamp" --torch-backend-to-tosa-backend-pipeline | FileCheck %s --check-prefix=FLAGS
// RUN: tosa-custom-opt %s --pass-pipeline='builtin.module(convert-torch-backend-legal-to-tosa-custom{ops=aten.gelu,aten.clamp encoding=const}, torch-backend-to-tosa-backend-pipeline)' | FileCheck %s --check-prefix=PIPELINE
// RUN: tosa-custom-opt %s --torch-backend-to-tosa-backend-pipeline --convert-torch-backend-legal-to-tosa-custom="ops=aten.gelu,aten.clamp" | FileCheck %s --check-prefix=REVERSED

// FLAGS-LABEL: func.func @block(
// FLAGS-SAME:      %[[X:[a-z0-9]+]]: tensor<2x8xf32>, %[[Y:[a-z0-9]+]]: tensor<2x8xf32>) -> tensor<2x8xf32>
// FLAGS-NEXT:      %[[GELU:.*]] = tosa.custom %[[X]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22approximate\22:\22tanh\22{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.gelu"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// FLAGS-NEXT:      %[[CLAMP:.*]] = tosa.custom %[[GELU]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22max\22:null{{.*}}\22min\22:-1{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.clamp"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// FLAGS-NEXT:      %[[SUM:.*]] = tosa.add %[[CLAMP]], %[[Y]] : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// FLAGS-NEXT:      return %[[SUM]] : tensor<2x8xf32>

// The same as one --pass-pipeline, with the const encoding: the tosa.const
// operand survives the TOSA pipeline.
// PIPELINE-LABEL: func.func @block(
// PIPELINE-SAME:      %[[X:[a-z0-9]+]]: tensor<2x8xf32>, %[[Y:[a-z0-9]+]]: tensor<2x8xf32>) -> tensor<2x8xf32>
// PIPELINE-NEXT:      %[[MIN:.*]] = "tosa.const"() <{values = dense<-1> : tensor<i64>}> : () -> tensor<i64>
// PIPELINE-NEXT:      %[[GELU:.*]] = tosa.custom %[[X]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22approximate\22:\22tanh\22{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.gelu"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// PIPELINE-NEXT:      %[[CLAMP:.*]] = tosa.custom %[[GELU]], %[[MIN]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22max\22:null{{.*}}\22min\22:{\22operand\22:1}{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.clamp"} : (tensor<2x8xf32>, tensor<i64>) -> tensor<2x8xf32>
// PIPELINE-NEXT:      %[[SUM:.*]] = tosa.add %[[CLAMP]], %[[Y]] : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// PIPELINE-NEXT:      return %[[SUM]] : tensor<2x8xf32>

// Run after the TOSA pipeline, our pass finds no torch op left to convert.
// REVERSED-LABEL: func.func @block(
// REVERSED-NOT:       tosa.custom
// REVERSED:           tosa.tanh
// REVERSED-NOT:       tosa.custom
// REVERSED:           tosa.clamp
// REVERSED-NOT:       tosa.custom
// REVERSED:           return

func.func @block(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %str = torch.constant.str "tanh"
  %0 = torch.aten.gelu %arg0, %str : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  %int-1 = torch.constant.int -1
  %none = torch.constant.none
  %1 = torch.aten.clamp %0, %int-1, %none : !torch.vtensor<[2,8],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,8],f32>
  %int1 = torch.constant.int 1
  %2 = torch.aten.add.Tensor %1, %arg1, %int1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  return %2 : !torch.vtensor<[2,8],f32>
}
