// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-i64-add-sub | FileCheck %s

// An int64 add with alpha: i64 TOSA, alpha a tosa.mul of the other operand
// (TorchToTosa would compute it in i32: 2**40 + 2**35 gave 0).
// CHECK-LABEL: func.func @add_alpha(
// CHECK-DAG:     %[[X:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[4],si64> -> tensor<4xi64>
// CHECK-DAG:     %[[Y:.*]] = torch_c.to_builtin_tensor %arg1 : !torch.vtensor<[4],si64> -> tensor<4xi64>
// CHECK:         %[[M:.*]] = tosa.mul %[[Y]], %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<1xi64>, tensor<1xi8>) -> tensor<4xi64>
// CHECK:         %[[S:.*]] = tosa.add %[[X]], %[[M]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK:         torch_c.from_builtin_tensor %[[S]] : tensor<4xi64> -> !torch.vtensor<[4],si64>
// CHECK-NOT:     torch.aten.add.Tensor
func.func @add_alpha(%arg0: !torch.vtensor<[4],si64>, %arg1: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],si64> {
  %int3 = torch.constant.int 3
  %0 = torch.aten.add.Tensor %arg0, %arg1, %int3 : !torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>, !torch.int -> !torch.vtensor<[4],si64>
  return %0 : !torch.vtensor<[4],si64>
}

// -----

// A Scalar beyond i32 stays whole in an i64 constant, alpha folded into it
// (2**40 * 2, int64-wrapped as eager would).
// CHECK-LABEL: func.func @sub_scalar(
// CHECK:         "tosa.const"() <{values = dense<2199023255552> : tensor<1x1xi64>}>
// CHECK:         tosa.sub %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<1x1xi64>) -> tensor<2x3xi64>
func.func @sub_scalar(%arg0: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3],si64> {
  %int2 = torch.constant.int 2
  %big = torch.constant.int 1099511627776
  %0 = torch.aten.sub.Scalar %arg0, %big, %int2 : !torch.vtensor<[2,3],si64>, !torch.int, !torch.int -> !torch.vtensor<[2,3],si64>
  return %0 : !torch.vtensor<[2,3],si64>
}

// -----

// rsub: the Scalar minus alpha times the tensor; an int32 operand is cast to
// int64 first, a lower-rank one reshaped to the result's rank.
// CHECK-LABEL: func.func @rsub_and_promotion(
// CHECK:         %[[C:.*]] = "tosa.const"() <{values = dense<7> : tensor<1xi64>}>
// CHECK:         %[[M:.*]] = tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3xi64>, tensor<1xi64>, tensor<1xi8>)
// CHECK:         tosa.sub %[[C]], %[[M]]
// CHECK:         torch.aten.to.dtype %arg1
// CHECK:         tosa.reshape %{{.*}}, %{{.*}} : (tensor<3xi64>, !tosa.shape<2>) -> tensor<1x3xi64>
// CHECK:         tosa.add %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
func.func @rsub_and_promotion(%arg0: !torch.vtensor<[3],si64>, %arg1: !torch.vtensor<[3],si32>, %arg2: !torch.vtensor<[2,3],si64>) -> (!torch.vtensor<[3],si64>, !torch.vtensor<[2,3],si64>) {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int7 = torch.constant.int 7
  %0 = torch.aten.rsub.Scalar %arg0, %int7, %int2 : !torch.vtensor<[3],si64>, !torch.int, !torch.int -> !torch.vtensor<[3],si64>
  %1 = torch.aten.add.Tensor %arg2, %arg1, %int1 : !torch.vtensor<[2,3],si64>, !torch.vtensor<[3],si32>, !torch.int -> !torch.vtensor<[2,3],si64>
  return %0, %1 : !torch.vtensor<[3],si64>, !torch.vtensor<[2,3],si64>
}

// -----

// Left to TorchToTosa: other dtypes, a Scalar known only at run time, and a
// lower-rank operand of a dynamic shape.
// CHECK-LABEL: func.func @left_alone(
// CHECK:         torch.aten.add.Tensor %arg0, %arg0
// CHECK:         torch.aten.add.Scalar %arg1, %arg3
// CHECK:         torch.aten.add.Tensor %arg1, %arg2
// CHECK-NOT:     tosa.
func.func @left_alone(%arg0: !torch.vtensor<[4],si32>, %arg1: !torch.vtensor<[2,?],si64>, %arg2: !torch.vtensor<[?],si64>, %arg3: !torch.int) -> (!torch.vtensor<[4],si32>, !torch.vtensor<[2,?],si64>, !torch.vtensor<[2,?],si64>) {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %arg0, %arg0, %int1 : !torch.vtensor<[4],si32>, !torch.vtensor<[4],si32>, !torch.int -> !torch.vtensor<[4],si32>
  %1 = torch.aten.add.Scalar %arg1, %arg3, %int1 : !torch.vtensor<[2,?],si64>, !torch.int, !torch.int -> !torch.vtensor<[2,?],si64>
  %2 = torch.aten.add.Tensor %arg1, %arg2, %int1 : !torch.vtensor<[2,?],si64>, !torch.vtensor<[?],si64>, !torch.int -> !torch.vtensor<[2,?],si64>
  return %0, %1, %2 : !torch.vtensor<[4],si32>, !torch.vtensor<[2,?],si64>, !torch.vtensor<[2,?],si64>
}
