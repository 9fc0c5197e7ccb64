// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-index-by-aranges | FileCheck %s

// transformers' padding mask: mask[arange(2)[:,None,None,None], arange(T)[None,None,None,:]]
// is the mask viewed as [2,1,1,T]; the view's `?` size is the arange's own length.
// CHECK-LABEL: func.func @index$whole_aranges(
// CHECK-NOT:     torch.aten.index.Tensor_hacked_twin
// CHECK-NOT:     torch.aten.unsqueeze
// CHECK:         %[[T:.*]] = torch.aten.size.int %arg0
// CHECK-NOT:     torch.aten.arange
// CHECK:         %[[L:.*]] = torch.prim.ListConstruct %int2{{.*}}, %int1{{.*}}, %int1{{.*}}, %[[T]] :
// CHECK:         torch.aten.view %arg0, %[[L]] : !torch.vtensor<[2,?],i1>, !torch.list<int> -> !torch.vtensor<[2,1,1,?],i1>
// CHECK-NOT:     torch.aten.index.Tensor_hacked_twin
func.func @index$whole_aranges(%arg0: !torch.vtensor<[2,?],i1>) -> !torch.vtensor<[2,1,1,?],i1> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %none = torch.constant.none
  %false = torch.constant.bool false
  %cpu = torch.constant.device "cpu"
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (2, s0)> : !torch.vtensor<[2,?],i1>
  %t = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,?],i1>, !torch.int -> !torch.int
  %b = torch.aten.arange.start_step %int0, %int2, %int1, %none, %int0, %cpu, %false : !torch.int, !torch.int, !torch.int, !torch.none, !torch.int, !torch.Device, !torch.bool -> !torch.vtensor<[2],si64>
  %k = torch.aten.arange.start_step %int0, %t, %int1, %none, %int0, %cpu, %false : !torch.int, !torch.int, !torch.int, !torch.none, !torch.int, !torch.Device, !torch.bool -> !torch.vtensor<[?],si64>
  %k0 = torch.aten.add.Scalar %k, %int0, %int1 : !torch.vtensor<[?],si64>, !torch.int, !torch.int -> !torch.vtensor<[?],si64>
  %b1 = torch.aten.unsqueeze %b, %int1 : !torch.vtensor<[2],si64>, !torch.int -> !torch.vtensor<[2,1],si64>
  %b2 = torch.aten.unsqueeze %b1, %int2 : !torch.vtensor<[2,1],si64>, !torch.int -> !torch.vtensor<[2,1,1],si64>
  %b3 = torch.aten.unsqueeze %b2, %int3 : !torch.vtensor<[2,1,1],si64>, !torch.int -> !torch.vtensor<[2,1,1,1],si64>
  %k1 = torch.aten.unsqueeze %k0, %int0 : !torch.vtensor<[?],si64>, !torch.int -> !torch.vtensor<[1,?],si64>
  %k2 = torch.aten.unsqueeze %k1, %int1 : !torch.vtensor<[1,?],si64>, !torch.int -> !torch.vtensor<[1,1,?],si64>
  %k3 = torch.aten.unsqueeze %k2, %int2 : !torch.vtensor<[1,1,?],si64>, !torch.int -> !torch.vtensor<[1,1,1,?],si64>
  %list = torch.prim.ListConstruct %b3, %k3 : (!torch.vtensor<[2,1,1,1],si64>, !torch.vtensor<[1,1,1,?],si64>) -> !torch.list<vtensor>
  %0 = torch.aten.index.Tensor_hacked_twin %arg0, %list : !torch.vtensor<[2,?],i1>, !torch.list<vtensor> -> !torch.vtensor<[2,1,1,?],i1>
  return %0 : !torch.vtensor<[2,1,1,?],i1>
}

// -----

// An arange shorter than the dim it indexes selects a part: not a view, left as it is.
// CHECK-LABEL: func.func @index$part(
// CHECK:         torch.aten.index.Tensor_hacked_twin
func.func @index$part(%arg0: !torch.vtensor<[?],f32>, %arg1: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %false = torch.constant.bool false
  %cpu = torch.constant.device "cpu"
  %s0 = torch.symbolic_int "s0" {min_val = 2, max_val = 32} : !torch.int
  %s1 = torch.symbolic_int "s1" {min_val = 2, max_val = 32} : !torch.int
  torch.bind_symbolic_shape %arg0, [%s0], affine_map<()[s0] -> (s0)> : !torch.vtensor<[?],f32>
  torch.bind_symbolic_shape %arg1, [%s1], affine_map<()[s0] -> (s0)> : !torch.vtensor<[?],f32>
  %n = torch.aten.size.int %arg1, %int0 : !torch.vtensor<[?],f32>, !torch.int -> !torch.int
  %k = torch.aten.arange.start_step %int0, %n, %int1, %none, %int0, %cpu, %false : !torch.int, !torch.int, !torch.int, !torch.none, !torch.int, !torch.Device, !torch.bool -> !torch.vtensor<[?],si64>
  %list = torch.prim.ListConstruct %k : (!torch.vtensor<[?],si64>) -> !torch.list<vtensor>
  %0 = torch.aten.index.Tensor_hacked_twin %arg0, %list : !torch.vtensor<[?],f32>, !torch.list<vtensor> -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}

// -----

// Embedding by [?,?] ids (TorchToTosa's lowering reshapes with two -1): by the
// flattened ids, viewed back to the ids' sizes and the row length.
// CHECK-LABEL: func.func @embedding$two_dynamic(
// CHECK:         %[[F:.*]] = torch.aten.view %arg1, %{{.*}} : !torch.vtensor<[?,?],si64>, !torch.list<int> -> !torch.vtensor<[?],si64>
// CHECK:         %[[E:.*]] = torch.aten.embedding %arg0, %[[F]], {{.*}} -> !torch.vtensor<[?,32],f32>
// CHECK:         %[[B:.*]] = torch.aten.size.int %arg1, %{{.*}}
// CHECK:         %[[T:.*]] = torch.aten.size.int %arg1, %{{.*}}
// CHECK:         %[[L:.*]] = torch.prim.ListConstruct %[[B]], %[[T]], %{{.*}} :
// CHECK:         torch.aten.view %[[E]], %[[L]] : !torch.vtensor<[?,32],f32>, !torch.list<int> -> !torch.vtensor<[?,?,32],f32>
func.func @embedding$two_dynamic(%arg0: !torch.vtensor<[100,32],f32>, %arg1: !torch.vtensor<[?,?],si64>) -> !torch.vtensor<[?,?,32],f32> {
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %0 = torch.aten.embedding %arg0, %arg1, %int0, %false, %false : !torch.vtensor<[100,32],f32>, !torch.vtensor<[?,?],si64>, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[?,?,32],f32>
  return %0 : !torch.vtensor<[?,?,32],f32>
}
