// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=aten.softmax.int,aten.cat,aten.gelu,aten.view,aten.zeros,aten.sum,aten.nonzero,aten.tanh,aten.slice.Tensor,aten.split.Tensor" | FileCheck %s

// (aten.size.int is not selected: a size operand is read through it.)
// CONTRACT.md §15.2: a tosa.custom with `?` result dims states each result's
// shape over its operands' dims and values ("result_shapes", version 3),
// derived from the torch.bind_symbolic_shape ops the FX importer writes
// (PyTorch's own shape propagation), never from a per-op rule.

// A bare symbol in a result dim: the first operand dim that is exactly it.
// CHECK-LABEL: func.func @softmax(
// CHECK:         tosa.custom {{.*}}implementation_attrs = "{\22args\22:{\22dim\22:-1,\22dtype\22:null,\22self\22:{\22operand\22:0}},\22result_shapes\22:[[\22dim(0,0)\22,\22dim(0,1)\22,64]],\22version\22:3}", operator_name = "torch.aten.softmax.int"} : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
func.func @softmax(%x: !torch.vtensor<[?,?,64],f32>) -> !torch.vtensor<[?,?,64],f32> {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 2, max_val = 512} : !torch.int
  torch.bind_symbolic_shape %x, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1, 64)> : !torch.vtensor<[?,?,64],f32>
  %int-1 = torch.constant.int -1
  %none = torch.constant.none
  %0 = torch.aten.softmax.int %x, %int-1, %none : !torch.vtensor<[?,?,64],f32>, !torch.int, !torch.none -> !torch.vtensor<[?,?,64],f32>
  torch.bind_symbolic_shape %0, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1, 64)> : !torch.vtensor<[?,?,64],f32>
  return %0 : !torch.vtensor<[?,?,64],f32>
}

// -----

// The second operand is the first to hold s2; s0 is read from operand 0.
// CHECK-LABEL: func.func @cat_sum(
// CHECK:         tosa.custom {{.*}}\22result_shapes\22:[[\22dim(0,0)\22,\22dim(0,1)+dim(1,1)\22,64]],\22version\22:3}", operator_name = "torch.aten.cat"}
func.func @cat_sum(%a: !torch.vtensor<[?,?,64],f32>, %b: !torch.vtensor<[?,?,64],f32>) -> !torch.vtensor<[?,?,64],f32> {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 2, max_val = 512} : !torch.int
  %s2 = torch.symbolic_int "s2" {min_val = 2, max_val = 512} : !torch.int
  torch.bind_symbolic_shape %a, [%s0, %s1], affine_map<()[s0, s1] -> (s0, s1, 64)> : !torch.vtensor<[?,?,64],f32>
  torch.bind_symbolic_shape %b, [%s0, %s2], affine_map<()[s0, s1] -> (s0, s1, 64)> : !torch.vtensor<[?,?,64],f32>
  %list = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[?,?,64],f32>, !torch.vtensor<[?,?,64],f32>) -> !torch.list<vtensor>
  %int1 = torch.constant.int 1
  %0 = torch.aten.cat %list, %int1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[?,?,64],f32>
  torch.bind_symbolic_shape %0, [%s0, %s1, %s2], affine_map<()[s0, s1, s2] -> (s0, s1 + s2, 64)> : !torch.vtensor<[?,?,64],f32>
  return %0 : !torch.vtensor<[?,?,64],f32>
}

// -----

// An operand dim that is an expression (a flattened [s0*s1, 64]): a result
// dim equal to it is that dim, not a product of symbols no operand holds.
// CHECK-LABEL: func.func @after_flatten(
// CHECK:         tosa.custom {{.*}}\22result_shapes\22:[[\22dim(0,0)\22,64]],\22version\22:3}", operator_name = "torch.aten.gelu"}
// Part of a size: (s0*s1)//2 over the operand of size s0*s1.
// CHECK:         tosa.custom {{.*}}\22result_shapes\22:[[\22dim(0,0)//2\22,128]],\22version\22:3}", operator_name = "torch.aten.view"}
func.func @after_flatten(%x: !torch.vtensor<[?,64],f32>) -> !torch.vtensor<[?,128],f32> {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 2, max_val = 512} : !torch.int
  torch.bind_symbolic_shape %x, [%s0, %s1], affine_map<()[s0, s1] -> (s0 * s1, 64)> : !torch.vtensor<[?,64],f32>
  %str = torch.constant.str "none"
  %0 = torch.aten.gelu %x, %str : !torch.vtensor<[?,64],f32>, !torch.str -> !torch.vtensor<[?,64],f32>
  torch.bind_symbolic_shape %0, [%s0, %s1], affine_map<()[s0, s1] -> (s0 * s1, 64)> : !torch.vtensor<[?,64],f32>
  %int-1 = torch.constant.int -1
  %int128 = torch.constant.int 128
  %size = torch.prim.ListConstruct %int-1, %int128 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.view %0, %size : !torch.vtensor<[?,64],f32>, !torch.list<int> -> !torch.vtensor<[?,128],f32>
  torch.bind_symbolic_shape %1, [%s0, %s1], affine_map<()[s0, s1] -> ((s0 * s1) floordiv 2, 128)> : !torch.vtensor<[?,128],f32>
  return %1 : !torch.vtensor<[?,128],f32>
}

// -----

// A size computed at run time (aten.size.int of a bound dim) travels as a 0-d
// operand: the result dim is its value.
// CHECK-LABEL: func.func @size_operand(
// CHECK:         tosa.custom {{.*}}\22size\22:[{\22operand\22:0},64]{{.*}}\22result_shapes\22:[[\22value(0)\22,64]],\22version\22:3}", operator_name = "torch.aten.zeros"} : (tensor<i64>) -> tensor<?x64xf32>
func.func @size_operand(%y: !torch.vtensor<[?,8],f32>) -> !torch.vtensor<[?,64],f32> {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %y, [%s0], affine_map<()[s0] -> (s0, 8)> : !torch.vtensor<[?,8],f32>
  %int0 = torch.constant.int 0
  %d = torch.aten.size.int %y, %int0 : !torch.vtensor<[?,8],f32>, !torch.int -> !torch.int
  %int64 = torch.constant.int 64
  %size = torch.prim.ListConstruct %d, %int64 : (!torch.int, !torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %0 = torch.aten.zeros %size, %none, %none, %none, %none : !torch.list<int>, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[?,64],f32>
  torch.bind_symbolic_shape %0, [%s0], affine_map<()[s0] -> (s0, 64)> : !torch.vtensor<[?,64],f32>
  return %0 : !torch.vtensor<[?,64],f32>
}

// -----

// Static results of a dynamic operand need no result_shapes (version 1).
// CHECK-LABEL: func.func @static_result(
// CHECK:         tosa.custom {{.*}}implementation_attrs = "{\22args\22:{\22dtype\22:null,\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.sum"} : (tensor<?x64xf32>) -> tensor<f32>
func.func @static_result(%x: !torch.vtensor<[?,64],f32>) -> !torch.vtensor<[],f32> {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0, 64)> : !torch.vtensor<[?,64],f32>
  %none = torch.constant.none
  %0 = torch.aten.sum %x, %none : !torch.vtensor<[?,64],f32>, !torch.none -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// A data-dependent size (an unbacked symbol no operand holds): not converted.
// CHECK-LABEL: func.func @data_dependent(
// CHECK-NOT:     tosa.custom
// CHECK:         torch.aten.nonzero
func.func @data_dependent(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?,1],si64> {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  %u0 = torch.symbolic_int "u0" {min_val = 0, max_val = 9223372036854775807} : !torch.int
  torch.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0)> : !torch.vtensor<[?],f32>
  // expected-warning@+1 {{torch.aten.nonzero left unconverted [dynamic-result-shape]: dim 0 of result #0 of torch.aten.nonzero depends on the size u0, which no operand dim or scalar operand holds}}
  %0 = torch.aten.nonzero %x : !torch.vtensor<[?],f32> -> !torch.vtensor<[?,1],si64>
  torch.bind_symbolic_shape %0, [%u0], affine_map<()[s0] -> (s0, 1)> : !torch.vtensor<[?,1],si64>
  return %0 : !torch.vtensor<[?,1],si64>
}

// -----

// No binding (a module imported without symbolic shapes): not converted.
// CHECK-LABEL: func.func @unbound(
// CHECK-NOT:     tosa.custom
func.func @unbound(%x: !torch.vtensor<[?,64],f32>) -> !torch.vtensor<[?,64],f32> {
  // expected-warning@+1 {{torch.aten.tanh left unconverted [dynamic-result-shape]: result #0 of torch.aten.tanh has type tensor<?x64xf32> and no torch.bind_symbolic_shape says how big its ? dims are (import with import_symbolic_shape_expressions=True, as compile() does)}}
  %0 = torch.aten.tanh %x : !torch.vtensor<[?,64],f32> -> !torch.vtensor<[?,64],f32>
  return %0 : !torch.vtensor<[?,64],f32>
}

// -----

// A symbol held only as c*s or s+c by an operand (a [64*s0] operand viewed
// as [s0, 64], a [s1+2] one sliced [1:-1]): solved exactly from that dim.
// CHECK-LABEL: func.func @solved(
// CHECK:         tosa.custom {{.*}}\22result_shapes\22:[[\22dim(0,0)//64\22,64]],\22version\22:3}", operator_name = "torch.aten.view"}
// CHECK:         tosa.custom {{.*}}\22result_shapes\22:[[\22dim(0,0)-2\22]],\22version\22:3}", operator_name = "torch.aten.slice.Tensor"}
func.func @solved(%x: !torch.vtensor<[?],f32>, %y: !torch.vtensor<[?],f32>) -> (!torch.vtensor<[?,64],f32>, !torch.vtensor<[?],f32>) {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 1, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0 * 64)> : !torch.vtensor<[?],f32>
  torch.bind_symbolic_shape %y, [%s1], affine_map<()[s0] -> (s0 + 2)> : !torch.vtensor<[?],f32>
  %int-1 = torch.constant.int -1
  %int64 = torch.constant.int 64
  %size = torch.prim.ListConstruct %int-1, %int64 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.view %x, %size : !torch.vtensor<[?],f32>, !torch.list<int> -> !torch.vtensor<[?,64],f32>
  torch.bind_symbolic_shape %0, [%s0], affine_map<()[s0] -> (s0, 64)> : !torch.vtensor<[?,64],f32>
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %1 = torch.aten.slice.Tensor %y, %int0, %int1, %int-1, %int1 : !torch.vtensor<[?],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?],f32>
  torch.bind_symbolic_shape %1, [%s1], affine_map<()[s0] -> (s0)> : !torch.vtensor<[?],f32>
  return %0, %1 : !torch.vtensor<[?,64],f32>, !torch.vtensor<[?],f32>
}

// -----

// A list result unpacked: one entry per element, read from the unpacked values' bindings.
// CHECK-LABEL: func.func @list_result(
// CHECK:         tosa.custom {{.*}}\22result_shapes\22:[[\22dim(0,0)\22,4],[\22dim(0,0)\22,4]],\22version\22:3}", operator_name = "torch.aten.split.Tensor"} : (tensor<?x8xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
func.func @list_result(%x: !torch.vtensor<[?,8],f32>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>) {
  %s0 = torch.symbolic_int "s0" {min_val = 1, max_val = 64} : !torch.int
  torch.bind_symbolic_shape %x, [%s0], affine_map<()[s0] -> (s0, 8)> : !torch.vtensor<[?,8],f32>
  %int4 = torch.constant.int 4
  %int1 = torch.constant.int 1
  %0 = torch.aten.split.Tensor %x, %int4, %int1 : !torch.vtensor<[?,8],f32>, !torch.int, !torch.int -> !torch.list<vtensor>
  %1:2 = torch.prim.ListUnpack %0 : !torch.list<vtensor> -> !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>
  torch.bind_symbolic_shape %1#0, [%s0], affine_map<()[s0] -> (s0, 4)> : !torch.vtensor<[?,4],f32>
  torch.bind_symbolic_shape %1#1, [%s0], affine_map<()[s0] -> (s0, 4)> : !torch.vtensor<[?,4],f32>
  return %1#0, %1#1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>
}
