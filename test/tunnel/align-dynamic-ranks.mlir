// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-align-dynamic-ranks | FileCheck %s

// sdpa's [T, T] causal mask added to the [2, 4, T, T] scores (issue 41):
// TorchToTosa would align it with a tosa.reshape to [1, 1, -1, -1], which
// TOSA refuses (two -1). The mask takes the rank itself, its sizes TOSA shape
// ops: [1, 1, T, T], T read by tosa.dim from the argument bound to it.
// CHECK-LABEL: func.func @add$mask(
// CHECK-SAME:      %[[S:[a-z0-9]+]]: !torch.vtensor<[2,4,?,?],f32>, %[[M:[a-z0-9]+]]: !torch.vtensor<[?,?],f32>
// CHECK:         %[[MB:.*]] = torch_c.to_builtin_tensor %[[M]] : !torch.vtensor<[?,?],f32> -> tensor<?x?xf32>
// CHECK:         %[[ONES:.*]] = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
// CHECK:         tosa.concat_shape
// CHECK:         %[[T:.*]] = tosa.dim %{{.*}} {axis = 2 : i32} : (tensor<2x4x?x?xf32>) -> !tosa.shape<1>
// CHECK:         %[[SHAPE:.*]] = tosa.concat_shape %{{.*}} : (!tosa.shape<3>, !tosa.shape<1>) -> !tosa.shape<4>
// CHECK:         %[[R:.*]] = tosa.reshape %[[MB]], %[[SHAPE]] : (tensor<?x?xf32>, !tosa.shape<4>) -> tensor<1x1x?x?xf32>
// CHECK:         %[[RV:.*]] = torch_c.from_builtin_tensor %[[R]] : tensor<1x1x?x?xf32> -> !torch.vtensor<[1,1,?,?],f32>
// CHECK:         torch.aten.add.Tensor %[[S]], %[[RV]], %{{.*}} : !torch.vtensor<[2,4,?,?],f32>, !torch.vtensor<[1,1,?,?],f32>
func.func @add$mask(%arg0: !torch.vtensor<[2,4,?,?],f32>, %arg1: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[2,4,?,?],f32> {
  %int1 = torch.constant.int 1
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (2, 4, s0, s0)> : !torch.vtensor<[2,4,?,?],f32>
  torch.bind_symbolic_shape %arg1, [%s0], affine_map<()[s0] -> (s0, s0)> : !torch.vtensor<[?,?],f32>
  %0 = torch.aten.add.Tensor %arg0, %arg1, %int1 : !torch.vtensor<[2,4,?,?],f32>, !torch.vtensor<[?,?],f32>, !torch.int -> !torch.vtensor<[2,4,?,?],f32>
  return %0 : !torch.vtensor<[2,4,?,?],f32>
}

// -----

// One `?` dim: TorchToTosa's -1 is valid, the operand is left as it is.
// CHECK-LABEL: func.func @add$one_dynamic(
// CHECK-NOT:     tosa.reshape
// CHECK:         torch.aten.add.Tensor %arg0, %arg1, %{{.*}} : !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[?,8],f32>
func.func @add$one_dynamic(%arg0: !torch.vtensor<[2,?,8],f32>, %arg1: !torch.vtensor<[?,8],f32>) -> !torch.vtensor<[2,?,8],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %arg0, %arg1, %int1 : !torch.vtensor<[2,?,8],f32>, !torch.vtensor<[?,8],f32>, !torch.int -> !torch.vtensor<[2,?,8],f32>
  return %0 : !torch.vtensor<[2,?,8],f32>
}

// -----

// A `?` size no argument dim holds (no binding): left to TorchToTosa.
// CHECK-LABEL: func.func @where$unknown(
// CHECK-NOT:     tosa.reshape
// CHECK:         torch.aten.where.self %arg0, %arg1, %arg2
func.func @where$unknown(%arg0: !torch.vtensor<[?,?],i1>, %arg1: !torch.vtensor<[2,?,?],f32>, %arg2: !torch.vtensor<[2,?,?],f32>) -> !torch.vtensor<[2,?,?],f32> {
  %0 = torch.aten.where.self %arg0, %arg1, %arg2 : !torch.vtensor<[?,?],i1>, !torch.vtensor<[2,?,?],f32>, !torch.vtensor<[2,?,?],f32> -> !torch.vtensor<[2,?,?],f32>
  return %0 : !torch.vtensor<[2,?,?],f32>
}
