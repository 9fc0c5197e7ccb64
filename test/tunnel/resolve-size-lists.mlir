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

// -----

// sdpa's causal mask (issue 41): ones(T, T) is a 0-d True expanded to the
// sizes of an empty [T, T] tensor. The 0-d input takes the result's rank
// (tosa.reshape to [1, 1]), then a tosa.tile by [T, T], T read by tosa.dim;
// the empty tensor, read only for its sizes, goes with its binding (the
// symbol, which other bindings read, stays).
// CHECK-LABEL: func.func @broadcast_to$rank0_mask(
// CHECK-NOT:     torch.aten.broadcast_to
// CHECK-NOT:     torch.aten.empty.memory_format
// CHECK:         torch.symbolic_int "s0"
// CHECK:         torch.bind_symbolic_shape %arg0
// CHECK:         %[[ONES:.*]] = tosa.const_shape {values = dense<1> : tensor<2xindex>} : () -> !tosa.shape<2>
// CHECK:         %[[R:.*]] = tosa.reshape %{{.*}}, %[[ONES]] : (tensor<i1>, !tosa.shape<2>) -> tensor<1x1xi1>
// CHECK:         %[[T:.*]] = tosa.dim %{{.*}} {axis = 2 : i32} : (tensor<2x4x?x8xf32>) -> !tosa.shape<1>
// CHECK:         %[[T2:.*]] = tosa.dim %{{.*}} {axis = 2 : i32} : (tensor<2x4x?x8xf32>) -> !tosa.shape<1>
// CHECK:         %[[M:.*]] = tosa.concat_shape %[[T]], %[[T2]] : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
// CHECK:         tosa.tile %[[R]], %[[M]] : (tensor<1x1xi1>, !tosa.shape<2>) -> tensor<?x?xi1>
// CHECK-NOT:     torch.aten.size.int
func.func @broadcast_to$rank0_mask(%arg0: !torch.vtensor<[2,4,?,8],f32>) -> !torch.vtensor<[?,?],i1> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int11 = torch.constant.int 11
  %false = torch.constant.bool false
  %none = torch.constant.none
  %cpu = torch.constant.device "cpu"
  %true = torch.vtensor.literal(dense<true> : tensor<i1>) : !torch.vtensor<[],i1>
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (2, 4, s0, 8)> : !torch.vtensor<[2,4,?,8],f32>
  %t = torch.aten.size.int %arg0, %int2 : !torch.vtensor<[2,4,?,8],f32>, !torch.int -> !torch.int
  %0 = torch.prim.ListConstruct %t, %t : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.empty.memory_format %0, %int11, %int0, %cpu, %false, %none : !torch.list<int>, !torch.int, !torch.int, !torch.Device, !torch.bool, !torch.none -> !torch.vtensor<[?,?],i1>
  torch.bind_symbolic_shape %1, [%s0], affine_map<()[s0] -> (s0, s0)> : !torch.vtensor<[?,?],i1>
  %2 = torch.aten.size.int %1, %int0 : !torch.vtensor<[?,?],i1>, !torch.int -> !torch.int
  %3 = torch.aten.size.int %1, %int1 : !torch.vtensor<[?,?],i1>, !torch.int -> !torch.int
  %4 = torch.prim.ListConstruct %2, %3 : (!torch.int, !torch.int) -> !torch.list<int>
  %5 = torch.aten.broadcast_to %true, %4 : !torch.vtensor<[],i1>, !torch.list<int> -> !torch.vtensor<[?,?],i1>
  return %5 : !torch.vtensor<[?,?],i1>
}
