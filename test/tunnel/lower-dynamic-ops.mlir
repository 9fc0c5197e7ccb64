// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-lower-dynamic-ops | FileCheck %s

// to.dtype f32 -> f64 on `?` dims (layer_norm's decomposition): tosa.cast.
// CHECK-LABEL: func.func @to_dtype$float(
// CHECK:         tosa.cast %{{.*}} : (tensor<?x32xf32>) -> tensor<?x32xf64>
// CHECK-NOT:     torch.aten.to.dtype
func.func @to_dtype$float(%arg0: !torch.vtensor<[?,32],f32>) -> !torch.vtensor<[?,32],f64> {
  %int7 = torch.constant.int 7
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %arg0, %int7, %false, %false, %none : !torch.vtensor<[?,32],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?,32],f64>
  return %0 : !torch.vtensor<[?,32],f64>
}

// -----

// float -> int truncates in torch and rounds in tosa.cast: rounded toward
// zero first (ceil below zero, floor above), as TorchToTosa does from static shapes.
// CHECK-LABEL: func.func @to_dtype$float_to_int(
// CHECK-NOT:     torch.aten.to.dtype
// CHECK:         %[[X:.*]] = torch_c.to_builtin_tensor %arg0
// CHECK:         %[[NEG:.*]] = tosa.greater %{{.*}}, %[[X]] : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xi1>
// CHECK-DAG:     %[[UP:.*]] = tosa.ceil %[[X]]
// CHECK-DAG:     %[[DOWN:.*]] = tosa.floor %[[X]]
// CHECK:         %[[T:.*]] = tosa.select %[[NEG]], %[[UP]], %[[DOWN]]
// CHECK:         tosa.cast %[[T]] : (tensor<?xf32>) -> tensor<?xi32>
func.func @to_dtype$float_to_int(%arg0: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],si32> {
  %int3 = torch.constant.int 3
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %arg0, %int3, %false, %false, %none : !torch.vtensor<[?],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?],si32>
  return %0 : !torch.vtensor<[?],si32>
}

// -----

// bool -> float (OPT's mask times its positions): TOSA casts no bool to a
// float; select(b, 1, 0), as TorchToTosa does from static shapes.
// CHECK-LABEL: func.func @to_dtype$bool_to_float(
// CHECK-NOT:     torch.aten.to.dtype
// CHECK:         %[[B:.*]] = torch_c.to_builtin_tensor %arg0
// CHECK-DAG:     %[[ONE:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1xf32>}>
// CHECK-DAG:     %[[ZERO:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1xf32>}>
// CHECK:         tosa.select %[[B]], %[[ONE]], %[[ZERO]] : (tensor<2x?xi1>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<2x?xf32>
func.func @to_dtype$bool_to_float(%arg0: !torch.vtensor<[2,?],i1>) -> !torch.vtensor<[2,?],f32> {
  %int6 = torch.constant.int 6
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %arg0, %int6, %false, %false, %none : !torch.vtensor<[2,?],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[2,?],f32>
  return %0 : !torch.vtensor<[2,?],f32>
}

// -----

// A slice of a static dim of a tensor with a `?` dim: tosa.slice, the `?`
// size read at run time from the argument dim bound to its symbol.
// CHECK-LABEL: func.func @slice$static_dim(
// CHECK:         %[[START:.*]] = tosa.const_shape {values = dense<[0, 0, 32]> : tensor<3xindex>}
// CHECK:         tosa.dim %{{.*}} {axis = 1 : i32} : (tensor<2x?x96xf32>) -> !tosa.shape<1>
// CHECK:         %[[SIZE:.*]] = tosa.concat_shape %{{.*}}, %{{.*}} : (!tosa.shape<2>, !tosa.shape<1>) -> !tosa.shape<3>
// CHECK:         tosa.slice %{{.*}}, %[[START]], %[[SIZE]] : (tensor<2x?x96xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x?x32xf32>
// CHECK-NOT:     torch.aten.slice.Tensor
func.func @slice$static_dim(%arg0: !torch.vtensor<[2,?,96],f32>) -> !torch.vtensor<[2,?,32],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int32 = torch.constant.int 32
  %int64 = torch.constant.int 64
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (2, s0, 96)> : !torch.vtensor<[2,?,96],f32>
  %0 = torch.aten.slice.Tensor %arg0, %int2, %int32, %int64, %int1 : !torch.vtensor<[2,?,96],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2,?,32],f32>
  torch.bind_symbolic_shape %0, [%s0], affine_map<()[s0] -> (2, s0, 32)> : !torch.vtensor<[2,?,32],f32>
  return %0 : !torch.vtensor<[2,?,32],f32>
}

// -----

// arange(T), T a symbol of at most 4: a slice of the constant arange(4).
// CHECK-LABEL: func.func @arange$bounded(
// CHECK:         %[[TABLE:.*]] = "tosa.const"() <{values = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>}>
// CHECK:         %[[D:.*]] = tosa.dim %{{.*}} {axis = 1 : i32}
// CHECK:         tosa.slice %[[TABLE]], %{{.*}}, %[[D]] : (tensor<4xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<?xf32>
// CHECK-NOT:     torch.aten.arange
func.func @arange$bounded(%arg0: !torch.vtensor<[3,?],f32>) -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int6 = torch.constant.int 6
  %false = torch.constant.bool false
  %cpu = torch.constant.device "cpu"
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 4} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (3, s0)> : !torch.vtensor<[3,?],f32>
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[3,?],f32>, !torch.int -> !torch.int
  %1 = torch.aten.arange.start_step %int0, %0, %int1, %int6, %int0, %cpu, %false : !torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.Device, !torch.bool -> !torch.vtensor<[?],f32>
  torch.bind_symbolic_shape %1, [%s0], affine_map<()[s0] -> (s0)> : !torch.vtensor<[?],f32>
  return %1 : !torch.vtensor<[?],f32>
}

// -----

// arange(T), T a symbol with no largest value (Dim.AUTO): counted in base 256,
// c3 = slice(256**3 * arange(256), ceil(T / 256**3)), then per digit the
// flattened c[:, None] + 256**j * arange(256)[None, :] sliced to ceil(T / 256**j).
// CHECK-LABEL: func.func @arange$unbounded(
// CHECK-NOT:     torch.aten.arange
// CHECK:         %[[C3:.*]] = "tosa.const"() {{.*}} : () -> tensor<256xi64>
// CHECK:         %[[D3:.*]] = tosa.const_shape  {values = dense<16777216> : tensor<1xindex>}
// CHECK:         %[[N3:.*]] = tosa.div_ceil_shape %{{.*}}, %[[D3]]
// CHECK:         tosa.slice %[[C3]], %{{.*}}, %[[N3]] : (tensor<256xi64>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<?xi64>
// CHECK:         tosa.add %{{.*}}, %{{.*}} : (tensor<?x1xi64>, tensor<1x256xi64>) -> tensor<?x256xi64>
// CHECK:         dense<65536> : tensor<1xindex>
// CHECK:         tosa.add %{{.*}}, %{{.*}} : (tensor<?x1xi64>, tensor<1x256xi64>) -> tensor<?x256xi64>
// CHECK:         dense<256> : tensor<1xindex>
// CHECK:         tosa.add %{{.*}}, %{{.*}} : (tensor<?x1xi64>, tensor<1x256xi64>) -> tensor<?x256xi64>
// CHECK:         tosa.reshape %{{.*}}, %{{.*}} : (tensor<?x256xi64>, !tosa.shape<1>) -> tensor<?xi64>
// CHECK:         %[[D:.*]] = tosa.dim %{{.*}} {axis = 1 : i32}
// CHECK-NEXT:    %[[R:.*]] = tosa.slice %{{.*}}, %{{.*}}, %[[D]] : (tensor<?xi64>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<?xi64>
// CHECK-NEXT:    torch_c.from_builtin_tensor %[[R]]
func.func @arange$unbounded(%arg0: !torch.vtensor<[3,?],f32>) -> !torch.vtensor<[?],si64> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int4 = torch.constant.int 4
  %false = torch.constant.bool false
  %cpu = torch.constant.device "cpu"
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 9223372036854775807} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (3, s0)> : !torch.vtensor<[3,?],f32>
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[3,?],f32>, !torch.int -> !torch.int
  %1 = torch.aten.arange.start_step %int0, %0, %int1, %int4, %int0, %cpu, %false : !torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.Device, !torch.bool -> !torch.vtensor<[?],si64>
  torch.bind_symbolic_shape %1, [%s0], affine_map<()[s0] -> (s0)> : !torch.vtensor<[?],si64>
  return %1 : !torch.vtensor<[?],si64>
}

// -----

// GQA's repeat_kv, h[:, :, None] of [B, H, T, D] with B and T dynamic: a
// tosa.reshape by the operand's dims with the 1 inserted (TorchToTosa would
// write two -1s, which tosa.reshape refuses).
// CHECK-LABEL: func.func @unsqueeze$two_dynamic_dims(
// CHECK-NOT:     torch.aten.unsqueeze
// CHECK:         %[[B:.*]] = tosa.dim %{{.*}} {axis = 0 : i32}
// CHECK:         %[[T:.*]] = tosa.dim %{{.*}} {axis = 2 : i32}
// CHECK:         tosa.reshape %{{.*}}, %{{.*}} : (tensor<?x2x?x8xf32>, !tosa.shape<5>) -> tensor<?x2x1x?x8xf32>
func.func @unsqueeze$two_dynamic_dims(%arg0: !torch.vtensor<[?,2,?,8],f32>) -> !torch.vtensor<[?,2,1,?,8],f32> {
  %int2 = torch.constant.int 2
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 4} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 1, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, 2, s1, 8)> : !torch.vtensor<[?,2,?,8],f32>
  %0 = torch.aten.unsqueeze %arg0, %int2 : !torch.vtensor<[?,2,?,8],f32>, !torch.int -> !torch.vtensor<[?,2,1,?,8],f32>
  return %0 : !torch.vtensor<[?,2,1,?,8],f32>
}

// -----

// BERT's token-type ids gathered by position ids [1,T]: tosa.gather of the
// table as [1,40,1] by the ids as i32, reshaped to [1,T].
// CHECK-LABEL: func.func @gather$dynamic_index(
// CHECK-NOT:     torch.aten.gather
// CHECK:         %[[V:.*]] = tosa.reshape %{{.*}}, %{{.*}} : (tensor<1x40xi64>, !tosa.shape<3>) -> tensor<1x40x1xi64>
// CHECK:         %[[I:.*]] = tosa.cast %{{.*}} : (tensor<1x?xi64>) -> tensor<1x?xi32>
// CHECK:         %[[G:.*]] = tosa.gather %[[V]], %[[I]] : (tensor<1x40x1xi64>, tensor<1x?xi32>) -> tensor<1x?x1xi64>
// CHECK:         tosa.reshape %[[G]], %{{.*}} : (tensor<1x?x1xi64>, !tosa.shape<2>) -> tensor<1x?xi64>
func.func @gather$dynamic_index(%arg0: !torch.vtensor<[1,40],si64>, %arg1: !torch.vtensor<[1,?],si64>) -> !torch.vtensor<[1,?],si64> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %0 = torch.aten.gather %arg0, %int1, %arg1, %false : !torch.vtensor<[1,40],si64>, !torch.int, !torch.vtensor<[1,?],si64>, !torch.bool -> !torch.vtensor<[1,?],si64>
  return %0 : !torch.vtensor<[1,?],si64>
}

// -----

// Rotary embedding's cat((freqs, freqs), -1) of [1,T,4]s: tosa.concat.
// CHECK-LABEL: func.func @cat$static_axis(
// CHECK-NOT:     torch.aten.cat
// CHECK:         tosa.concat %{{.*}}, %{{.*}} {axis = 2 : i32} : (tensor<1x?x4xf32>, tensor<1x?x4xf32>) -> tensor<1x?x8xf32>
func.func @cat$static_axis(%arg0: !torch.vtensor<[1,?,4],f32>) -> !torch.vtensor<[1,?,8],f32> {
  %int-1 = torch.constant.int -1
  %0 = torch.prim.ListConstruct %arg0, %arg0 : (!torch.vtensor<[1,?,4],f32>, !torch.vtensor<[1,?,4],f32>) -> !torch.list<vtensor>
  %1 = torch.aten.cat %0, %int-1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[1,?,8],f32>
  return %1 : !torch.vtensor<[1,?,8],f32>
}

// -----

// A cat along the `?` dim (its size a sum): left to TorchToTosa.
// CHECK-LABEL: func.func @cat$dynamic_axis(
// CHECK:         torch.aten.cat
func.func @cat$dynamic_axis(%arg0: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> {
  %int0 = torch.constant.int 0
  %0 = torch.prim.ListConstruct %arg0, %arg0 : (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>) -> !torch.list<vtensor>
  %1 = torch.aten.cat %0, %int0 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[?,4],f32>
  return %1 : !torch.vtensor<[?,4],f32>
}

// -----

// Softmax's decomposition takes max.dim's values only; with two `?` dims
// TorchToTosa's argmax reshape (two -1) is invalid: tosa.reduce_max.
// CHECK-LABEL: func.func @max_dim$values_only(
// CHECK-NOT:     torch.aten.max.dim
// CHECK:         tosa.reduce_max %{{.*}} {axis = 2 : i32} : (tensor<?x?x?xf32>) -> tensor<?x?x1xf32>
func.func @max_dim$values_only(%arg0: !torch.vtensor<[?,?,?],f32>) -> !torch.vtensor<[?,?,1],f32> {
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %values, %indices = torch.aten.max.dim %arg0, %int-1, %true : !torch.vtensor<[?,?,?],f32>, !torch.int, !torch.bool -> !torch.vtensor<[?,?,1],f32>, !torch.vtensor<[?,?,1],si64>
  return %values : !torch.vtensor<[?,?,1],f32>
}

// -----

// Its indices read: left to TorchToTosa.
// CHECK-LABEL: func.func @max_dim$indices_read(
// CHECK:         torch.aten.max.dim
func.func @max_dim$indices_read(%arg0: !torch.vtensor<[?,?,?],f32>) -> !torch.vtensor<[?,?,1],si64> {
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %values, %indices = torch.aten.max.dim %arg0, %int-1, %true : !torch.vtensor<[?,?,?],f32>, !torch.int, !torch.bool -> !torch.vtensor<[?,?,1],f32>, !torch.vtensor<[?,?,1],si64>
  return %indices : !torch.vtensor<[?,?,1],si64>
}

// -----

// On `?` dims: the uint8 <-> int8 carriers are the same i8 bits (no op), bool -> uint8 a tosa.cast to i8.
// CHECK-LABEL: func.func @to_dtype$uint8(
// CHECK:         %[[B:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[?,3],ui8> -> tensor<?x3xi8>
// CHECK:         %[[S:.*]] = torch_c.from_builtin_tensor %[[B]] : tensor<?x3xi8> -> !torch.vtensor<[?,3],si8>
// CHECK:         %[[M:.*]] = torch_c.to_builtin_tensor %arg1 : !torch.vtensor<[?,3],i1> -> tensor<?x3xi1>
// CHECK:         %[[C:.*]] = tosa.cast %[[M]] : (tensor<?x3xi1>) -> tensor<?x3xi8>
// CHECK:         %[[U:.*]] = torch_c.from_builtin_tensor %[[C]] : tensor<?x3xi8> -> !torch.vtensor<[?,3],ui8>
// CHECK-NOT:     torch.aten.to.dtype
// CHECK:         return %[[S]], %[[U]]
func.func @to_dtype$uint8(%arg0: !torch.vtensor<[?,3],ui8>, %arg1: !torch.vtensor<[?,3],i1>) -> (!torch.vtensor<[?,3],si8>, !torch.vtensor<[?,3],ui8>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %arg0, %int1, %false, %false, %none : !torch.vtensor<[?,3],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?,3],si8>
  %1 = torch.aten.to.dtype %arg1, %int0, %false, %false, %none : !torch.vtensor<[?,3],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?,3],ui8>
  return %0, %1 : !torch.vtensor<[?,3],si8>, !torch.vtensor<[?,3],ui8>
}

// -----

// x[:, :x.shape[1] - 1] (issue 41): a slice with no start and an end
// computed from a size: tosa.slice from 0, its size the result's bound dim
// s0 - 1 by TOSA shape ops.
// CHECK-LABEL: func.func @slice$no_start_size_end(
// CHECK-NOT:     torch.aten.slice.Tensor
// CHECK:         %[[D:.*]] = tosa.dim %{{.*}} {axis = 1 : i32} : (tensor<2x?x4xf32>) -> !tosa.shape<1>
// CHECK:         %[[ONE:.*]] = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
// CHECK:         tosa.sub_shape %[[D]], %[[ONE]] : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
// CHECK:         tosa.slice %{{.*}} : (tensor<2x?x4xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x?x4xf32>
func.func @slice$no_start_size_end(%arg0: !torch.vtensor<[2,?,4],f32>) -> !torch.vtensor<[2,?,4],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %s0 = torch.symbolic_int "s0" {min_val = 3, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (2, s0, 4)> : !torch.vtensor<[2,?,4],f32>
  %0 = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,?,4],f32>, !torch.int -> !torch.int
  %1 = torch.aten.sub.int %0, %int1 : !torch.int, !torch.int -> !torch.int
  %2 = torch.aten.slice.Tensor %arg0, %int1, %none, %1, %int1 : !torch.vtensor<[2,?,4],f32>, !torch.int, !torch.none, !torch.int, !torch.int -> !torch.vtensor<[2,?,4],f32>
  torch.bind_symbolic_shape %2, [%s0], affine_map<()[s0] -> (2, s0 - 1, 4)> : !torch.vtensor<[2,?,4],f32>
  return %2 : !torch.vtensor<[2,?,4],f32>
}

// -----

// T5's relative position buckets: bool of [?, ?] to int64, a tosa.cast (0 or 1).
// CHECK-LABEL: func.func @to_dtype$bool_to_int64(
// CHECK-NOT:     torch.aten.to.dtype
// CHECK:         tosa.cast %{{.*}} : (tensor<?x?xi1>) -> tensor<?x?xi64>
func.func @to_dtype$bool_to_int64(%arg0: !torch.vtensor<[?,?],i1>) -> !torch.vtensor<[?,?],si64> {
  %int4 = torch.constant.int 4
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %arg0, %int4, %false, %false, %none : !torch.vtensor<[?,?],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?,?],si64>
  return %0 : !torch.vtensor<[?,?],si64>
}

// -----

// RoBERTa's cumsum(mask).type_as(mask): int64 to int32 wraps in both, a tosa.cast.
// CHECK-LABEL: func.func @to_dtype$int64_to_int32(
// CHECK-NOT:     torch.aten.to.dtype
// CHECK:         tosa.cast %{{.*}} : (tensor<?x?xi64>) -> tensor<?x?xi32>
func.func @to_dtype$int64_to_int32(%arg0: !torch.vtensor<[?,?],si64>) -> !torch.vtensor<[?,?],si32> {
  %int3 = torch.constant.int 3
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %arg0, %int3, %false, %false, %none : !torch.vtensor<[?,?],si64>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?,?],si32>
  return %0 : !torch.vtensor<[?,?],si32>
}

// -----

// uint8 -> int32 would sign-extend the i8 bits that carry uint8: left to TorchToTosa.
// CHECK-LABEL: func.func @to_dtype$uint8_to_int32(
// CHECK:         torch.aten.to.dtype
func.func @to_dtype$uint8_to_int32(%arg0: !torch.vtensor<[?],ui8>) -> !torch.vtensor<[?],si32> {
  %int3 = torch.constant.int 3
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %arg0, %int3, %false, %false, %none : !torch.vtensor<[?],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?],si32>
  return %0 : !torch.vtensor<[?],si32>
}

// -----

// RoBERTa's position ids, cumsum of an int32 mask of [B, T] (T at most 5) into
// int64: cast, then x += x shifted by 1, 2 and 4 (pad by the shift, slice back
// to [B, T] read by tosa.dim).
// CHECK-LABEL: func.func @cumsum$bounded(
// CHECK-NOT:     torch.aten.cumsum
// CHECK:         %[[X:.*]] = tosa.cast %{{.*}} : (tensor<?x?xi32>) -> tensor<?x?xi64>
// CHECK:         %[[B:.*]] = tosa.dim %{{.*}} {axis = 0 : i32}
// CHECK:         %[[T:.*]] = tosa.dim %{{.*}} {axis = 1 : i32}
// CHECK:         %[[SIZE:.*]] = tosa.concat_shape %[[B]], %[[T]]
// CHECK:         %[[P1:.*]] = tosa.const_shape {values = dense<[0, 0, 1, 0]> : tensor<4xindex>}
// CHECK:         %[[PAD1:.*]] = tosa.pad %[[X]], %[[P1]], %{{.*}} : (tensor<?x?xi64>, !tosa.shape<4>, tensor<1xi64>) -> tensor<?x?xi64>
// CHECK:         %[[S1:.*]] = tosa.slice %[[PAD1]], %{{.*}}, %[[SIZE]]
// CHECK:         %[[X1:.*]] = tosa.add %[[X]], %[[S1]]
// CHECK:         dense<[0, 0, 2, 0]>
// CHECK:         %[[X2:.*]] = tosa.add %[[X1]], %{{.*}}
// CHECK:         dense<[0, 0, 4, 0]>
// CHECK:         %[[X4:.*]] = tosa.add %[[X2]], %{{.*}}
// CHECK-NOT:     tosa.pad
// CHECK:         torch_c.from_builtin_tensor %[[X4]]
func.func @cumsum$bounded(%arg0: !torch.vtensor<[?,?],si32>) -> !torch.vtensor<[?,?],si64> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 4} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 1, max_val = 5} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1)> : !torch.vtensor<[?,?],si32>
  %0 = torch.aten.cumsum %arg0, %int1, %none : !torch.vtensor<[?,?],si32>, !torch.int, !torch.none -> !torch.vtensor<[?,?],si64>
  torch.bind_symbolic_shape %0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1)> : !torch.vtensor<[?,?],si64>
  return %0 : !torch.vtensor<[?,?],si64>
}

// -----

// A cumsum along a static dim of a tensor with a `?` dim: one pad of static
// size per step, none past the dim's length (3: shifts 1 and 2).
// CHECK-LABEL: func.func @cumsum$static_axis(
// CHECK-NOT:     torch.aten.cumsum
// CHECK:         tosa.pad %{{.*}} : (tensor<?x3xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<?x4xf32>
// CHECK:         tosa.pad %{{.*}} : (tensor<?x3xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<?x5xf32>
// CHECK-NOT:     tosa.pad
func.func @cumsum$static_axis(%arg0: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32> {
  %int-1 = torch.constant.int -1
  %none = torch.constant.none
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 4} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (s0, 3)> : !torch.vtensor<[?,3],f32>
  %0 = torch.aten.cumsum %arg0, %int-1, %none : !torch.vtensor<[?,3],f32>, !torch.int, !torch.none -> !torch.vtensor<[?,3],f32>
  torch.bind_symbolic_shape %0, [%s0], affine_map<()[s0] -> (s0, 3)> : !torch.vtensor<[?,3],f32>
  return %0 : !torch.vtensor<[?,3],f32>
}

// -----

// Along a `?` dim with no largest value (Dim.AUTO): the scan would pad by up to
// 2**31, so the cumsum is left (auto mode tunnels it, stock mode's error names it).
// CHECK-LABEL: func.func @cumsum$unbounded(
// CHECK:         torch.aten.cumsum
func.func @cumsum$unbounded(%arg0: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],si64> {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 9223372036854775807} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (s0)> : !torch.vtensor<[?],si64>
  %0 = torch.aten.cumsum %arg0, %int0, %none : !torch.vtensor<[?],si64>, !torch.int, !torch.none -> !torch.vtensor<[?],si64>
  torch.bind_symbolic_shape %0, [%s0], affine_map<()[s0] -> (s0)> : !torch.vtensor<[?],si64>
  return %0 : !torch.vtensor<[?],si64>
}

// -----

// RoBERTa's token-type ids, the [1, 40] buffer expanded to [B, 40], gathered by
// position ids [B, T]: the table as [B, 40, 1] and the result [B, T] by shape ops.
// CHECK-LABEL: func.func @gather$dynamic_rows(
// CHECK-NOT:     torch.aten.gather
// CHECK:         %[[V:.*]] = tosa.reshape %{{.*}}, %{{.*}} : (tensor<?x40xi64>, !tosa.shape<3>) -> tensor<?x40x1xi64>
// CHECK:         %[[I:.*]] = tosa.cast %{{.*}} : (tensor<?x?xi64>) -> tensor<?x?xi32>
// CHECK:         %[[G:.*]] = tosa.gather %[[V]], %[[I]] : (tensor<?x40x1xi64>, tensor<?x?xi32>) -> tensor<?x?x1xi64>
// CHECK:         %[[B:.*]] = tosa.dim %{{.*}} {axis = 0 : i32}
// CHECK:         %[[T:.*]] = tosa.dim %{{.*}} {axis = 1 : i32}
// CHECK:         %[[S:.*]] = tosa.concat_shape %[[B]], %[[T]]
// CHECK:         tosa.reshape %[[G]], %[[S]] : (tensor<?x?x1xi64>, !tosa.shape<2>) -> tensor<?x?xi64>
func.func @gather$dynamic_rows(%arg0: !torch.vtensor<[?,40],si64>, %arg1: !torch.vtensor<[?,?],si64>) -> !torch.vtensor<[?,?],si64> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 4} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 1, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (s0, 40)> : !torch.vtensor<[?,40],si64>
  torch.bind_symbolic_shape %arg1, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1)> : !torch.vtensor<[?,?],si64>
  %0 = torch.aten.gather %arg0, %int1, %arg1, %false : !torch.vtensor<[?,40],si64>, !torch.int, !torch.vtensor<[?,?],si64>, !torch.bool -> !torch.vtensor<[?,?],si64>
  torch.bind_symbolic_shape %0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1)> : !torch.vtensor<[?,?],si64>
  return %0 : !torch.vtensor<[?,?],si64>
}

// -----

// The same table as an expand of the constant [1, 40] row (every row alike):
// one tosa.gather from the row by the ids flattened to [1, B*T], so the table
// stays a constant whose range the i64 narrowing reads.
// CHECK-LABEL: func.func @gather$expanded_row(
// CHECK-NOT:     torch.aten.gather
// CHECK:         %[[V:.*]] = tosa.reshape %{{.*}}, %{{.*}} : (tensor<1x40xi64>, !tosa.shape<3>) -> tensor<1x40x1xi64>
// CHECK:         %[[F:.*]] = tosa.reshape %{{.*}}, %{{.*}} : (tensor<?x?xi64>, !tosa.shape<2>) -> tensor<1x?xi64>
// CHECK:         %[[I:.*]] = tosa.cast %[[F]] : (tensor<1x?xi64>) -> tensor<1x?xi32>
// CHECK:         %[[G:.*]] = tosa.gather %[[V]], %[[I]] : (tensor<1x40x1xi64>, tensor<1x?xi32>) -> tensor<1x?x1xi64>
// CHECK:         tosa.reshape %[[G]], %{{.*}} : (tensor<1x?x1xi64>, !tosa.shape<2>) -> tensor<?x?xi64>
func.func @gather$expanded_row(%arg0: !torch.vtensor<[1,40],si64>, %arg1: !torch.vtensor<[?,?],si64>) -> !torch.vtensor<[?,?],si64> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int-1 = torch.constant.int -1
  %false = torch.constant.bool false
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 4} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 1, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg1, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1)> : !torch.vtensor<[?,?],si64>
  %b = torch.aten.size.int %arg1, %int0 : !torch.vtensor<[?,?],si64>, !torch.int -> !torch.int
  %sizes = torch.prim.ListConstruct %b, %int-1 : (!torch.int, !torch.int) -> !torch.list<int>
  %table = torch.aten.expand %arg0, %sizes, %false : !torch.vtensor<[1,40],si64>, !torch.list<int>, !torch.bool -> !torch.vtensor<[?,40],si64>
  torch.bind_symbolic_shape %table, [%s0], affine_map<()[s0] -> (s0, 40)> : !torch.vtensor<[?,40],si64>
  %0 = torch.aten.gather %table, %int1, %arg1, %false : !torch.vtensor<[?,40],si64>, !torch.int, !torch.vtensor<[?,?],si64>, !torch.bool -> !torch.vtensor<[?,?],si64>
  torch.bind_symbolic_shape %0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1)> : !torch.vtensor<[?,?],si64>
  return %0 : !torch.vtensor<[?,?],si64>
}

// -----

// x[:, :, 0] of [2, T, 8] (select's decomposition: a slice torch-mlir made,
// no binding): the `?` size of a dim not sliced is the operand's.
// CHECK-LABEL: func.func @slice$unbound_result(
// CHECK-NOT:     torch.aten.slice.Tensor
// CHECK:         tosa.dim %{{.*}} {axis = 1 : i32} : (tensor<2x?x8xf32>) -> !tosa.shape<1>
// CHECK:         tosa.slice %{{.*}} : (tensor<2x?x8xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x?x1xf32>
func.func @slice$unbound_result(%arg0: !torch.vtensor<[2,?,8],f32>) -> !torch.vtensor<[2,?,1],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 9} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (2, s0, 8)> : !torch.vtensor<[2,?,8],f32>
  %0 = torch.aten.slice.Tensor %arg0, %int2, %int0, %int1, %int1 : !torch.vtensor<[2,?,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2,?,1],f32>
  return %0 : !torch.vtensor<[2,?,1],f32>
}
