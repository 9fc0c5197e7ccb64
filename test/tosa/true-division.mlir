// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-true-division | FileCheck %s

// float16 by a float16 tensor: both exactly to float32, divided there,
// rounded once back.
// CHECK-LABEL: func.func @f16_by_tensor(
// CHECK:         %[[X:.*]] = torch.aten.to.dtype %arg0, %int6{{.*}} -> !torch.vtensor<[4],f32>
// CHECK:         %[[Y:.*]] = torch.aten.to.dtype %arg1, %int6{{.*}} -> !torch.vtensor<[4],f32>
// CHECK:         %[[Q:.*]] = torch.aten.div.Tensor %[[X]], %[[Y]] : {{.*}} -> !torch.vtensor<[4],f32>
// CHECK:         %[[R:.*]] = torch.aten.to.dtype %[[Q]], %int5{{.*}} -> !torch.vtensor<[4],f16>
// CHECK:         return %[[R]]
func.func @f16_by_tensor(%arg0: !torch.vtensor<[4],f16>, %arg1: !torch.vtensor<[4],f16>) -> !torch.vtensor<[4],f16> {
  %0 = torch.aten.div.Tensor %arg0, %arg1 : !torch.vtensor<[4],f16>, !torch.vtensor<[4],f16> -> !torch.vtensor<[4],f16>
  return %0 : !torch.vtensor<[4],f16>
}

// -----

// bfloat16 by a number: the number stays as it is (eager reads it in float32).
// CHECK-LABEL: func.func @bf16_by_number(
// CHECK:         %[[X:.*]] = torch.aten.to.dtype %arg0, %int6{{.*}} -> !torch.vtensor<[?,3],f32>
// CHECK:         %[[Q:.*]] = torch.aten.div.Scalar %[[X]], %float3.000000e00 : {{.*}} -> !torch.vtensor<[?,3],f32>
// CHECK:         torch.aten.to.dtype %[[Q]], %int15{{.*}} -> !torch.vtensor<[?,3],bf16>
func.func @bf16_by_number(%arg0: !torch.vtensor<[?,3],bf16>) -> !torch.vtensor<[?,3],bf16> {
  %float3 = torch.constant.float 3.000000e+00
  %0 = torch.aten.div.Scalar %arg0, %float3 : !torch.vtensor<[?,3],bf16>, !torch.float -> !torch.vtensor<[?,3],bf16>
  return %0 : !torch.vtensor<[?,3],bf16>
}

// -----

// A 0-d float32 divisor enters float32 as it is; an int64 dividend tensor is
// first the result type, as eager's common dtype makes it. A rounding mode
// of None is plain true division.
// CHECK-LABEL: func.func @mixed_operands(
// CHECK:         %[[H:.*]] = torch.aten.to.dtype %arg0, %int5{{.*}} -> !torch.vtensor<[4],f16>
// CHECK:         %[[X:.*]] = torch.aten.to.dtype %[[H]], %int6{{.*}} -> !torch.vtensor<[4],f32>
// CHECK-NOT:     torch.aten.to.dtype %arg1
// CHECK:         %[[Q:.*]] = torch.aten.div.Tensor %[[X]], %arg1 : {{.*}} -> !torch.vtensor<[4],f32>
// CHECK:         torch.aten.to.dtype %[[Q]], %int5{{.*}} -> !torch.vtensor<[4],f16>
func.func @mixed_operands(%arg0: !torch.vtensor<[4],si64>, %arg1: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f16> {
  %none = torch.constant.none
  %0 = torch.aten.div.Tensor_mode %arg0, %arg1, %none : !torch.vtensor<[4],si64>, !torch.vtensor<[],f32>, !torch.none -> !torch.vtensor<[4],f16>
  return %0 : !torch.vtensor<[4],f16>
}

// -----

// An integer tensor divided by a float number: the tensor enters as the
// float result type, the number stays a number (TorchToTosa made it the
// tensor's type: x / 2.1 divided by 2). Two integer tensors likewise.
// CHECK-LABEL: func.func @integers_to_float(
// CHECK:         %[[X:.*]] = torch.aten.to.dtype %arg0, %int6{{.*}} -> !torch.vtensor<[3],f32>
// CHECK:         torch.aten.div.Scalar %[[X]], %float2.100000e00 : {{.*}} -> !torch.vtensor<[3],f32>
// CHECK:         %[[A:.*]] = torch.aten.to.dtype %arg0, %int6{{.*}} -> !torch.vtensor<[3],f32>
// CHECK:         %[[B:.*]] = torch.aten.to.dtype %arg1, %int6{{.*}} -> !torch.vtensor<[3],f32>
// CHECK:         torch.aten.div.Tensor %[[A]], %[[B]] : {{.*}} -> !torch.vtensor<[3],f32>
func.func @integers_to_float(%arg0: !torch.vtensor<[3],si64>, %arg1: !torch.vtensor<[3],si32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
  %float = torch.constant.float 2.100000e+00
  %0 = torch.aten.div.Scalar %arg0, %float : !torch.vtensor<[3],si64>, !torch.float -> !torch.vtensor<[3],f32>
  %1 = torch.aten.div.Tensor %arg0, %arg1 : !torch.vtensor<[3],si64>, !torch.vtensor<[3],si32> -> !torch.vtensor<[3],f32>
  return %0, %1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// float32 stays float32: a None mode is only respelt (TorchToTosa lowers
// no aten.div.Scalar_mode). Left alone: a rounding mode (exact_division's).
// CHECK-LABEL: func.func @others(
// CHECK-NOT:     torch.aten.to.dtype
// CHECK:         torch.aten.div.Tensor %arg0, %arg0 : {{.*}} -> !torch.vtensor<[4],f32>
// CHECK:         torch.aten.div.Scalar %arg0, %int2 : {{.*}} -> !torch.vtensor<[4],f32>
// CHECK:         torch.aten.div.Tensor_mode %arg1, %arg1, %str
// CHECK-NOT:     torch.aten.div.Scalar_mode
func.func @others(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.vtensor<[4],f16>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f16>) {
  %str = torch.constant.str "floor"
  %none = torch.constant.none
  %int2 = torch.constant.int 2
  %0 = torch.aten.div.Tensor %arg0, %arg0 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  %1 = torch.aten.div.Scalar_mode %arg0, %int2, %none : !torch.vtensor<[4],f32>, !torch.int, !torch.none -> !torch.vtensor<[4],f32>
  %2 = torch.aten.div.Tensor_mode %arg1, %arg1, %str : !torch.vtensor<[4],f16>, !torch.vtensor<[4],f16>, !torch.str -> !torch.vtensor<[4],f16>
  return %0, %1, %2 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f16>
}
