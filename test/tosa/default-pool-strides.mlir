// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-default-pool-strides | FileCheck %s

// An empty stride is the kernel size (PyTorch); torch-mlir would read it past its end.
// CHECK-LABEL: func.func @avg_pool2d(
// CHECK:         %[[K:.*]] = torch.prim.ListConstruct %[[A:.*]], %[[B:.*]] : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK:         %[[S:.*]] = torch.prim.ListConstruct %[[A]], %[[B]] : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK:         torch.aten.avg_pool2d %arg0, %[[K]], %[[S]], %{{.*}}, %false, %true, %none
func.func @avg_pool2d(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32> {
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %0 = torch.prim.ListConstruct %int2, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.prim.ListConstruct  : () -> !torch.list<int>
  %int0 = torch.constant.int 0
  %2 = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %none = torch.constant.none
  %3 = torch.aten.avg_pool2d %arg0, %0, %1, %2, %false, %true, %none : !torch.vtensor<[1,1,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[1,1,2,2],f32>
  return %3 : !torch.vtensor<[1,1,2,2],f32>
}

// -----

// A stride given stays.
// CHECK-LABEL: func.func @max_pool2d(
// CHECK:         %[[S:.*]] = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
// CHECK:         torch.aten.max_pool2d %arg0, %{{.*}}, %[[S]],
func.func @max_pool2d(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,3,3],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %0 = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %1 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %2 = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %3 = torch.aten.max_pool2d %arg0, %0, %1, %2, %1, %false : !torch.vtensor<[1,1,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,1,3,3],f32>
  return %3 : !torch.vtensor<[1,1,3,3],f32>
}
