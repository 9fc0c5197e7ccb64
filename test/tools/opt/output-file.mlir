// -o writes the output to a file and nothing to stdout; the file parses again.

// RUN: rm -rf %t && mkdir -p %t
// RUN: tosa-custom-opt %s --convert-torch-backend-legal-to-tosa-custom="ops=aten.tanh" -o %t/out.mlir > %t/stdout.txt
// RUN: not grep . %t/stdout.txt
// RUN: FileCheck %s --input-file=%t/out.mlir
// Round trip, with the spelling -o=FILE:
// RUN: tosa-custom-opt %t/out.mlir -o=%t/again.mlir
// RUN: FileCheck %s --input-file=%t/again.mlir

// CHECK-LABEL: func.func @f(
// CHECK:         %[[T:.*]] = torch_c.to_builtin_tensor
// CHECK:         %[[C:.*]] = tosa.custom %[[T]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         torch_c.from_builtin_tensor %[[C]]

func.func @f(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}
