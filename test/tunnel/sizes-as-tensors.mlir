// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-sizes-as-tensors | FileCheck %s

// A mean's divisor x.shape[1] is computed at run time, not baked in:
// reduce_sum(tile([1], dim)) as a 0-d i32 tensor, and div.Tensor.
// CHECK-LABEL: func.func @div$by_size(
// CHECK:         %[[ONE:.*]] = "tosa.const"() <{values = dense<1> : tensor<1xi32>}> : () -> tensor<1xi32>
// CHECK:         %[[D:.*]] = tosa.dim %{{.*}} {axis = 1 : i32} : (tensor<3x?xf32>) -> !tosa.shape<1>
// CHECK:         %[[T:.*]] = tosa.tile %[[ONE]], %[[D]] : (tensor<1xi32>, !tosa.shape<1>) -> tensor<?xi32>
// CHECK:         %[[N:.*]] = tosa.reduce_sum %[[T]] {axis = 0 : i32} : (tensor<?xi32>) -> tensor<1xi32>
// CHECK:         %[[E:.*]] = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
// CHECK:         %[[S:.*]] = tosa.reshape %[[N]], %[[E]] : (tensor<1xi32>, !tosa.shape<0>) -> tensor<i32>
// CHECK:         %[[V:.*]] = torch_c.from_builtin_tensor %[[S]] : tensor<i32> -> !torch.vtensor<[],si32>
// CHECK:         torch.aten.div.Tensor %{{.*}}, %[[V]] : !torch.vtensor<[3],f32>, !torch.vtensor<[],si32> -> !torch.vtensor<[3],f32>
// CHECK-NOT:     torch.aten.div.Scalar
// CHECK-NOT:     torch.aten.size.int
func.func @div$by_size(%arg0: !torch.vtensor<[3,?],f32>) -> !torch.vtensor<[3],f32> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %none = torch.constant.none
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (3, s0)> : !torch.vtensor<[3,?],f32>
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[3,?],f32>, !torch.int -> !torch.int
  %1 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %2 = torch.aten.sum.dim_IntList %arg0, %1, %false, %none : !torch.vtensor<[3,?],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[3],f32>
  %3 = torch.aten.div.Scalar %2, %0 : !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
  return %3 : !torch.vtensor<[3],f32>
}

// -----

// A constant divisor is TorchToTosa's: left alone.
// CHECK-LABEL: func.func @div$by_constant(
// CHECK:         torch.aten.div.Scalar
func.func @div$by_constant(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %int4 = torch.constant.int 4
  %0 = torch.aten.div.Scalar %arg0, %int4 : !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
