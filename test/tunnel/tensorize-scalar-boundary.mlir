// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-tensorize-scalar-boundary | FileCheck %s

// A Python-number argument becomes a 0-d tensor read through a carrier; a
// constant number returned becomes a 0-d literal marked with its Python type.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[X:.*]]: !torch.vtensor<[3],f32>, %[[S:.*]]: !torch.vtensor<[],f64>)
// CHECK-SAME:    -> (!torch.vtensor<[3],f32>, !torch.vtensor<[],si64> {tosa_custom.scalar = "int"})
// CHECK:         %[[F:.*]] = torch.aten.Float.Tensor %[[S]] {tosa_custom.carrier = "result"}
// CHECK:         %[[M:.*]] = torch.aten.mul.Scalar %[[X]], %[[F]]
// CHECK:         %[[L:.*]] = torch.vtensor.literal(dense<3> : tensor<si64>) : !torch.vtensor<[],si64>
// CHECK:         return %[[M]], %[[L]]
func.func @forward(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.float) -> (!torch.vtensor<[3],f32>, !torch.int) {
  %0 = torch.aten.mul.Scalar %arg0, %arg1 : !torch.vtensor<[3],f32>, !torch.float -> !torch.vtensor<[3],f32>
  %int3 = torch.constant.int 3
  return %0, %int3 : !torch.vtensor<[3],f32>, !torch.int
}

// -----

// A complex argument travels as view_as_real pairs, marked with its dtype.
// CHECK-LABEL: func.func @complex_arg(
// CHECK-SAME:    %[[Z:.*]]: !torch.vtensor<[4,2],f32> {tosa_custom.dtype = "complex64"})
// CHECK:         torch.aten.view_as_complex %[[Z]] {tosa_custom.carrier = "result"}
func.func @complex_arg(%arg0: !torch.vtensor<[4],complex<f32>>) -> !torch.vtensor<[4],f32> {
  %0 = torch.aten.abs %arg0 : !torch.vtensor<[4],complex<f32>> -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
