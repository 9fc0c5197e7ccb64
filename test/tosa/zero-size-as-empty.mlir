// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-zero-size-as-empty | FileCheck %s

// A zero-size literal (native_batch_norm's saved statistics in eval) and a
// zero-size factory (linspace with 0 steps) become empty tensors.
// CHECK-LABEL: func.func @zero_size(
// CHECK-NOT:     torch.vtensor.literal
// CHECK-NOT:     torch.aten.empty.memory_format
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<0xf32>
// CHECK:         %[[V0:.*]] = torch_c.from_builtin_tensor %[[E0]] : tensor<0xf32> -> !torch.vtensor<[0],f32>
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<2x0xf16>
// CHECK:         %[[V1:.*]] = torch_c.from_builtin_tensor %[[E1]] : tensor<2x0xf16> -> !torch.vtensor<[2,0],f16>
// CHECK:         return %[[V0]], %[[V1]]
func.func @zero_size() -> (!torch.vtensor<[0],f32>, !torch.vtensor<[2,0],f16>) {
  %0 = torch.vtensor.literal(dense<0.000000e+00> : tensor<0xf32>) : !torch.vtensor<[0],f32>
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %int5 = torch.constant.int 5
  %none = torch.constant.none
  %false = torch.constant.bool false
  %cpu = torch.constant.device "cpu"
  %sizes = torch.prim.ListConstruct %int2, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.empty.memory_format %sizes, %int5, %none, %cpu, %false, %none : !torch.list<int>, !torch.int, !torch.none, !torch.Device, !torch.bool, !torch.none -> !torch.vtensor<[2,0],f16>
  return %0, %1 : !torch.vtensor<[0],f32>, !torch.vtensor<[2,0],f16>
}

// -----

// Literals and ops with elements stay; an op reading a tensor whose every
// result is zero-size does not (a slice of nothing).
// CHECK-LABEL: func.func @others(
// CHECK:         torch.vtensor.literal
// CHECK:         torch.aten.zeros
// CHECK-NOT:     torch.aten.slice.Tensor
// CHECK:         tensor.empty() : tensor<0xf32>
func.func @others(%arg0: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[0],f32>) {
  %0 = torch.vtensor.literal(dense<1.000000e+00> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %int6 = torch.constant.int 6
  %none = torch.constant.none
  %sizes = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %1 = torch.aten.zeros %sizes, %int6, %none, %none, %none : !torch.list<int>, !torch.int, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[2],f32>
  %2 = torch.aten.slice.Tensor %arg0, %int0, %int1, %int1, %int1 : !torch.vtensor<[3],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[0],f32>
  return %0, %1, %2 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[0],f32>
}
