// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-half-products | FileCheck %s

// A float16 tensor times 2*pi, which float16 cannot hold: computed in float32
// with the number unrounded and rounded once, as eager does (TorchToTosa
// would make the number 6.28125 first).
// CHECK-LABEL: func.func @times_two_pi(
// CHECK:         %[[W:.*]] = torch.aten.to.dtype %arg0, %int6{{.*}} -> !torch.vtensor<[4],f32>
// CHECK:         %[[P:.*]] = torch.aten.mul.Scalar %[[W]], %float6.283190e00 : !torch.vtensor<[4],f32>, !torch.float -> !torch.vtensor<[4],f32>
// CHECK:         torch.aten.to.dtype %[[P]], %int5{{.*}} -> !torch.vtensor<[4],f16>
func.func @times_two_pi(%arg0: !torch.vtensor<[4],f16>) -> !torch.vtensor<[4],f16> {
  %float6.283190e00 = torch.constant.float 6.2831853071795862
  %0 = torch.aten.mul.Scalar %arg0, %float6.283190e00 : !torch.vtensor<[4],f16>, !torch.float -> !torch.vtensor<[4],f16>
  return %0 : !torch.vtensor<[4],f16>
}

// -----

// Left alone: a number bfloat16 holds (the half product rounds alike), and a
// float32 tensor.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     torch.aten.to.dtype
// CHECK:         torch.aten.mul.Scalar %arg0, %float5.000000e-01 : !torch.vtensor<[4],bf16>
// CHECK:         torch.aten.mul.Scalar %arg1, %float3.141590e00 : !torch.vtensor<[4],f32>
func.func @left_alone(%arg0: !torch.vtensor<[4],bf16>, %arg1: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],bf16>, !torch.vtensor<[4],f32>) {
  %float5.000000e-01 = torch.constant.float 5.000000e-01
  %float3.141590e00 = torch.constant.float 3.1415926535897931
  %0 = torch.aten.mul.Scalar %arg0, %float5.000000e-01 : !torch.vtensor<[4],bf16>, !torch.float -> !torch.vtensor<[4],bf16>
  %1 = torch.aten.mul.Scalar %arg1, %float3.141590e00 : !torch.vtensor<[4],f32>, !torch.float -> !torch.vtensor<[4],f32>
  return %0, %1 : !torch.vtensor<[4],bf16>, !torch.vtensor<[4],f32>
}
