// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-resolve-size-lists | FileCheck %s

// One size-list entry read at run time (x.size(0) * x.size(1), bound to
// s0*s1): -1 in a tosa.reshape (TOSA 1.0 form; TorchToTosa refuses views on `?`).
// CHECK-LABEL: func.func @view$one_symbolic(
// CHECK-NOT:     torch.aten.view
// CHECK:         %[[S:.*]] = tosa.const_shape {values = dense<[-1, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
// CHECK:         %[[R:.*]] = tosa.reshape %{{.*}}, %[[S]] : (tensor<?x?x32xf32>, !tosa.shape<2>) -> tensor<?x32xf32>
// CHECK:         torch_c.from_builtin_tensor %[[R]] : tensor<?x32xf32> -> !torch.vtensor<[?,32],f32>
// CHECK-NOT:     torch.aten.mul.int
func.func @view$one_symbolic(%arg0: !torch.vtensor<[?,?,32],f32>) -> !torch.vtensor<[?,32],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int32 = torch.constant.int 32
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1, 32)> : !torch.vtensor<[?,?,32],f32>
  %0 = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,?,32],f32>, !torch.int -> !torch.int
  %1 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[?,?,32],f32>, !torch.int -> !torch.int
  %2 = torch.aten.mul.int %0, %1 : !torch.int, !torch.int -> !torch.int
  %3 = torch.prim.ListConstruct %2, %int32 : (!torch.int, !torch.int) -> !torch.list<int>
  %4 = torch.aten.view %arg0, %3 : !torch.vtensor<[?,?,32],f32>, !torch.list<int> -> !torch.vtensor<[?,32],f32>
  torch.bind_symbolic_shape %4, [%s0, %s1], affine_map<()[s0, s1] -> (s0 * s1, 32)> : !torch.vtensor<[?,32],f32>
  return %4 : !torch.vtensor<[?,32],f32>
}

// -----

// Two entries read at run time: the shape is computed by TOSA shape ops
// (1.1 draft), each symbol read from the argument dim bound to it.
// CHECK-LABEL: func.func @view$two_symbolic(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: !torch.vtensor<[?,?,32],f32>, %[[Y:[a-z0-9]+]]: !torch.vtensor<[?,64],f32>
// CHECK:         %[[XB:.*]] = torch_c.to_builtin_tensor %[[X]]
// CHECK:         %[[D0:.*]] = tosa.dim %[[XB]] {axis = 0 : i32} : (tensor<?x?x32xf32>) -> !tosa.shape<1>
// CHECK:         %[[XB1:.*]] = torch_c.to_builtin_tensor %[[X]]
// CHECK:         %[[D1:.*]] = tosa.dim %[[XB1]] {axis = 1 : i32} : (tensor<?x?x32xf32>) -> !tosa.shape<1>
// CHECK:         %[[C01:.*]] = tosa.concat_shape %[[D0]], %[[D1]] : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
// CHECK:         %[[C64:.*]] = tosa.const_shape {values = dense<64> : tensor<1xindex>} : () -> !tosa.shape<1>
// CHECK:         %[[SHAPE:.*]] = tosa.concat_shape %[[C01]], %[[C64]] : (!tosa.shape<2>, !tosa.shape<1>) -> !tosa.shape<3>
// CHECK:         %[[YB:.*]] = torch_c.to_builtin_tensor %[[Y]]
// CHECK:         tosa.reshape %[[YB]], %[[SHAPE]] : (tensor<?x64xf32>, !tosa.shape<3>) -> tensor<?x?x64xf32>
// CHECK-NOT:     torch.aten.view
func.func @view$two_symbolic(%arg0: !torch.vtensor<[?,?,32],f32>, %arg1: !torch.vtensor<[?,64],f32>) -> !torch.vtensor<[?,?,64],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int64 = torch.constant.int 64
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1, 32)> : !torch.vtensor<[?,?,32],f32>
  torch.bind_symbolic_shape %arg1, [%s0, %s1], affine_map<()[s0, s1] -> (s0 * s1, 64)> : !torch.vtensor<[?,64],f32>
  %0 = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,?,32],f32>, !torch.int -> !torch.int
  %1 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[?,?,32],f32>, !torch.int -> !torch.int
  %2 = torch.prim.ListConstruct %0, %1, %int64 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %3 = torch.aten.view %arg1, %2 : !torch.vtensor<[?,64],f32>, !torch.list<int> -> !torch.vtensor<[?,?,64],f32>
  return %3 : !torch.vtensor<[?,?,64],f32>
}

// -----

// An expand whose run-time entry is its input's own dim keeps its input: removed.
// CHECK-LABEL: func.func @broadcast_to$identity(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: !torch.vtensor<[2,?,8],f32>
// CHECK-NOT:     torch.aten.broadcast_to
// CHECK:         return %[[X]]
func.func @broadcast_to$identity(%arg0: !torch.vtensor<[2,?,8],f32>) -> !torch.vtensor<[2,?,8],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int8 = torch.constant.int 8
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (2, s0, 8)> : !torch.vtensor<[2,?,8],f32>
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,?,8],f32>, !torch.int -> !torch.int
  %1 = torch.prim.ListConstruct %int2, %0, %int8 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %2 = torch.aten.broadcast_to %arg0, %1 : !torch.vtensor<[2,?,8],f32>, !torch.list<int> -> !torch.vtensor<[2,?,8],f32>
  return %2 : !torch.vtensor<[2,?,8],f32>
}

// -----

// An entry whose result dim is static becomes that constant; a static view stays for TorchToTosa.
// CHECK-LABEL: func.func @view$static_result(
// CHECK:         %[[L:.*]] = torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK:         torch.aten.view %{{.*}}, %[[L]] : !torch.vtensor<[4,6],f32>, !torch.list<int> -> !torch.vtensor<[24,1],f32>
func.func @view$static_result(%arg0: !torch.vtensor<[4,6],f32>, %arg1: !torch.int) -> !torch.vtensor<[24,1],f32> {
  %int24 = torch.constant.int 24
  %0 = torch.prim.ListConstruct %int24, %arg1 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.view %arg0, %0 : !torch.vtensor<[4,6],f32>, !torch.list<int> -> !torch.vtensor<[24,1],f32>
  return %1 : !torch.vtensor<[24,1],f32>
}

// -----

// A size no binding explains (a number passed in) is left for TorchToTosa's error.
// CHECK-LABEL: func.func @view$unknown_size(
// CHECK:         torch.aten.view
func.func @view$unknown_size(%arg0: !torch.vtensor<[?,?],f32>, %arg1: !torch.int, %arg2: !torch.int) -> !torch.vtensor<[?,?],f32> {
  %0 = torch.prim.ListConstruct %arg1, %arg2 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.view %arg0, %0 : !torch.vtensor<[?,?],f32>, !torch.list<int> -> !torch.vtensor<[?,?],f32>
  return %1 : !torch.vtensor<[?,?],f32>
}

// -----

// An expand of a static 1 dim to a run-time size (BERT's token-type ids,
// [1,T] -> [B,T]): a tosa.tile whose multiples are [B, 1], B read by tosa.dim.
// CHECK-LABEL: func.func @broadcast_to$tile(
// CHECK-NOT:     torch.aten.broadcast_to
// CHECK:         %[[B:.*]] = tosa.dim %{{.*}} {axis = 0 : i32} : (tensor<?x?xi64>) -> !tosa.shape<1>
// CHECK:         %[[ONE:.*]] = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
// CHECK:         %[[M:.*]] = tosa.concat_shape %[[B]], %[[ONE]] : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
// CHECK:         tosa.tile %{{.*}}, %[[M]] : (tensor<1x?xi64>, !tosa.shape<2>) -> tensor<?x?xi64>
func.func @broadcast_to$tile(%arg0: !torch.vtensor<[?,?],si64>, %arg1: !torch.vtensor<[1,?],si64>) -> !torch.vtensor<[?,?],si64> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 8} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1)> : !torch.vtensor<[?,?],si64>
  torch.bind_symbolic_shape %arg1, [%s1], affine_map<()[s0] -> (1, s0)> : !torch.vtensor<[1,?],si64>
  %0 = torch.aten.size.int %arg0, %int0 : !torch.vtensor<[?,?],si64>, !torch.int -> !torch.int
  %1 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[?,?],si64>, !torch.int -> !torch.int
  %2 = torch.prim.ListConstruct %0, %1 : (!torch.int, !torch.int) -> !torch.list<int>
  %3 = torch.aten.broadcast_to %arg1, %2 : !torch.vtensor<[1,?],si64>, !torch.list<int> -> !torch.vtensor<[?,?],si64>
  return %3 : !torch.vtensor<[?,?],si64>
}

// -----

// Grouped-query attention repeats keys [2,2,1,T,8] -> [2,2,2,T,8]: every size
// known (T the input's own), yet TorchToTosa refuses the expand on `?`: a
// tosa.tile by constant multiples. The input was made by a torch-mlir
// decomposition (no binding): its T is read through the elementwise add.
// CHECK-LABEL: func.func @broadcast_to$derived_tile(
// CHECK-NOT:     torch.aten.broadcast_to
// CHECK:         %[[M:.*]] = tosa.const_shape {values = dense<[1, 1, 2, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
// CHECK:         tosa.tile %{{.*}}, %[[M]] : (tensor<2x2x1x?x8xf32>, !tosa.shape<5>) -> tensor<2x2x2x?x8xf32>
func.func @broadcast_to$derived_tile(%arg0: !torch.vtensor<[2,2,1,?,8],f32>) -> !torch.vtensor<[2,2,2,?,8],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int8 = torch.constant.int 8
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (2, 2, 1, s0, 8)> : !torch.vtensor<[2,2,1,?,8],f32>
  %0 = torch.aten.add.Tensor %arg0, %arg0, %int1 : !torch.vtensor<[2,2,1,?,8],f32>, !torch.vtensor<[2,2,1,?,8],f32>, !torch.int -> !torch.vtensor<[2,2,1,?,8],f32>
  %t = torch.aten.size.int %arg0, %int3 : !torch.vtensor<[2,2,1,?,8],f32>, !torch.int -> !torch.int
  %1 = torch.prim.ListConstruct %int2, %int2, %int2, %t, %int8 : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %2 = torch.aten.broadcast_to %0, %1 : !torch.vtensor<[2,2,1,?,8],f32>, !torch.list<int> -> !torch.vtensor<[2,2,2,?,8],f32>
  return %2 : !torch.vtensor<[2,2,2,?,8],f32>
}
