// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-exact-rounding-division | FileCheck %s

// Floor division by a tensor: floor(x / y), then one up where (n + 1) * y has
// not passed x, one down where n * y has, each test by y's sign.
// CHECK-LABEL: func.func @floor_by_tensor(
// CHECK:         %[[Q:.*]] = torch.aten.div.Tensor %arg0, %arg1
// CHECK:         %[[N:.*]] = torch.aten.floor %[[Q]]
// CHECK:         %[[UP:.*]] = torch.aten.add.Scalar %[[N]], %int1
// CHECK:         %[[DOWN:.*]] = torch.aten.add.Scalar %[[N]], %int-1
// CHECK:         %[[ABOVE:.*]] = torch.aten.mul.Tensor %[[UP]], %arg1
// CHECK:         %[[BELOW:.*]] = torch.aten.mul.Tensor %[[N]], %arg1
// CHECK:         %[[POS:.*]] = torch.aten.gt.Scalar %arg1, %int0
// CHECK:         %[[LE:.*]] = torch.aten.le.Tensor %[[ABOVE]], %arg0
// CHECK:         %[[GE:.*]] = torch.aten.ge.Tensor %[[ABOVE]], %arg0
// CHECK:         %[[INC:.*]] = torch.aten.where.self %[[POS]], %[[LE]], %[[GE]]
// CHECK:         %[[GT:.*]] = torch.aten.gt.Tensor %[[BELOW]], %arg0
// CHECK:         %[[LT:.*]] = torch.aten.lt.Tensor %[[BELOW]], %arg0
// CHECK:         %[[DEC:.*]] = torch.aten.where.self %[[POS]], %[[GT]], %[[LT]]
// CHECK:         %[[R:.*]] = torch.aten.where.self %[[DEC]], %[[DOWN]], %[[N]]
// CHECK:         torch.aten.where.self %[[INC]], %[[UP]], %[[R]]
// CHECK-NOT:     torch.aten.div.Tensor_mode
func.func @floor_by_tensor(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %str = torch.constant.str "floor"
  %0 = torch.aten.div.Tensor_mode %arg0, %arg1, %str : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.str -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// bfloat16 computes in float32 and rounds once; a 0-d literal divisor's sign
// is known, so no comparison of it is made.
// CHECK-LABEL: func.func @trunc_bf16_by_literal(
// CHECK:         torch.aten.to.dtype %arg0, %int6{{.*}} -> !torch.vtensor<[4],f32>
// CHECK:         torch.aten.div.Scalar {{.*}}, %float7.000000e00
// CHECK-NOT:     torch.aten.gt.Scalar
// CHECK:         torch.aten.logical_not
// CHECK:         torch.aten.to.dtype {{.*}}, %int15{{.*}} -> !torch.vtensor<[4],bf16>
func.func @trunc_bf16_by_literal(%arg0: !torch.vtensor<[4],bf16>) -> !torch.vtensor<[4],bf16> {
  %str = torch.constant.str "trunc"
  %0 = torch.vtensor.literal(dense<-7.000000e+00> : tensor<bf16>) : !torch.vtensor<[],bf16>
  %1 = torch.aten.div.Tensor_mode %arg0, %0, %str : !torch.vtensor<[4],bf16>, !torch.vtensor<[],bf16>, !torch.str -> !torch.vtensor<[4],bf16>
  return %1 : !torch.vtensor<[4],bf16>
}

// -----

// remainder is x - floor(x / y) * y; integer division and a true division stay.
// CHECK-LABEL: func.func @others(
// CHECK-NOT:     torch.aten.remainder.Scalar
// CHECK:         torch.aten.sub.Tensor
// CHECK:         torch.aten.div.Tensor_mode %arg1, %arg1
func.func @others(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.vtensor<[4],si64>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],si64>) {
  %float3 = torch.constant.float 3.000000e+00
  %0 = torch.aten.remainder.Scalar %arg0, %float3 : !torch.vtensor<[4],f32>, !torch.float -> !torch.vtensor<[4],f32>
  %str = torch.constant.str "floor"
  %1 = torch.aten.div.Tensor_mode %arg1, %arg1, %str : !torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>, !torch.str -> !torch.vtensor<[4],si64>
  return %0, %1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],si64>
}

// -----

// int64 floor division: the truncating quotient, moved one down where its
// remainder is nonzero and of the other sign than the divisor (TorchToTosa
// decides by the sign of x * y, which wraps: 2**63 - 2 floor-divided by
// 2**63 - 1 gave -1). Comparisons are against a 0 of the operands' type.
// CHECK-LABEL: func.func @int64_floor_by_tensor(
// CHECK:         %[[Q:.*]] = torch.aten.div.Tensor_mode %arg0, %arg1, %str
// CHECK:         %[[P:.*]] = torch.aten.mul.Tensor %[[Q]], %arg1
// CHECK:         %[[R:.*]] = torch.aten.sub.Tensor %arg0, %[[P]]
// CHECK:         %[[ZERO:.*]] = torch.vtensor.literal(dense<0> : tensor<si64>)
// CHECK:         %[[RNEG:.*]] = torch.aten.lt.Tensor %[[R]], %[[ZERO]]
// CHECK:         %[[YNEG:.*]] = torch.aten.lt.Tensor %arg1, %[[ZERO]]
// CHECK:         %[[NZ:.*]] = torch.aten.ne.Tensor %[[R]], %[[ZERO]]
// CHECK:         %[[X:.*]] = torch.aten.logical_xor %[[RNEG]], %[[YNEG]]
// CHECK:         %[[AWAY:.*]] = torch.aten.logical_and %[[NZ]], %[[X]]
// CHECK:         %[[DOWN:.*]] = torch.aten.add.Scalar %[[Q]], %int-1
// CHECK:         torch.aten.where.self %[[AWAY]], %[[DOWN]], %[[Q]]
func.func @int64_floor_by_tensor(%arg0: !torch.vtensor<[4],si64>, %arg1: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64> {
  %str = torch.constant.str "floor"
  %0 = torch.aten.div.Tensor_mode %arg0, %arg1, %str : !torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>, !torch.str -> !torch.vtensor<[4],si64>
  return %0 : !torch.vtensor<[4],si64>
}

// -----

// int8 remainder by a negative Scalar: computed in int32 (TOSA 1.0 compares
// only i32), moved by the divisor where the remainder is positive, and cast
// back; int trunc division is TOSA's intdiv and stays.
// CHECK-LABEL: func.func @int8_remainder_by_scalar(
// CHECK:         torch.aten.to.dtype %arg0, %int3{{.*}} -> !torch.vtensor<[4],si32>
// CHECK:         torch.aten.div.Scalar_mode {{.*}}, %[[Y:int-3.*]], %str
// CHECK:         torch.aten.gt.Tensor
// CHECK:         torch.aten.add.Scalar {{.*}}, %[[Y]]
// CHECK:         torch.aten.to.dtype {{.*}}, %int1{{.*}} -> !torch.vtensor<[4],si8>
// CHECK:         torch.aten.div.Tensor_mode %arg0, %arg0, %{{.*}} : {{.*}} -> !torch.vtensor<[4],si8>
func.func @int8_remainder_by_scalar(%arg0: !torch.vtensor<[4],si8>) -> (!torch.vtensor<[4],si8>, !torch.vtensor<[4],si8>) {
  %int-3 = torch.constant.int -3
  %0 = torch.aten.remainder.Scalar %arg0, %int-3 : !torch.vtensor<[4],si8>, !torch.int -> !torch.vtensor<[4],si8>
  %str = torch.constant.str "trunc"
  %1 = torch.aten.div.Tensor_mode %arg0, %arg0, %str : !torch.vtensor<[4],si8>, !torch.vtensor<[4],si8>, !torch.str -> !torch.vtensor<[4],si8>
  return %0, %1 : !torch.vtensor<[4],si8>, !torch.vtensor<[4],si8>
}
