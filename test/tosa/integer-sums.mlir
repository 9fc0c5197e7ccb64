// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-integer-sums | FileCheck %s

// An int32 sum into int64 without dtype=: the dtype is spelt out (int64 is 4), so the sum is computed in int64.
// CHECK-LABEL: func.func @int32_sums(
// CHECK:         %[[D:.*]] = torch.constant.int 4
// CHECK:         torch.aten.sum.dim_IntList %arg0, %{{.*}}, %false, %[[D]] : !torch.vtensor<[2,3],si32>, !torch.list<int>, !torch.bool, !torch.int -> !torch.vtensor<[2],si64>
// CHECK:         %[[E:.*]] = torch.constant.int 4
// CHECK:         torch.aten.sum %arg1, %[[E]] : !torch.vtensor<[5],si16>, !torch.int -> !torch.vtensor<[],si64>
func.func @int32_sums(%arg0: !torch.vtensor<[2,3],si32>, %arg1: !torch.vtensor<[5],si16>) -> (!torch.vtensor<[2],si64>, !torch.vtensor<[],si64>) {
  %int1 = torch.constant.int 1
  %0 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %none = torch.constant.none
  %1 = torch.aten.sum.dim_IntList %arg0, %0, %false, %none : !torch.vtensor<[2,3],si32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2],si64>
  %2 = torch.aten.sum %arg1, %none : !torch.vtensor<[5],si16>, !torch.none -> !torch.vtensor<[],si64>
  return %1, %2 : !torch.vtensor<[2],si64>, !torch.vtensor<[],si64>
}

// -----

// Left alone: an int64 sum, a given dtype, a float sum and a bool count (cannot wrap in i32).
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-4: torch.aten.sum %{{.*}}, %none
// CHECK-NOT:     torch.aten.sum %{{.*}}, %none
func.func @left_alone(%a: !torch.vtensor<[5],si64>, %b: !torch.vtensor<[5],si32>, %c: !torch.vtensor<[5],f32>, %d: !torch.vtensor<[5],i1>) -> (!torch.vtensor<[],si64>, !torch.vtensor<[],si32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],si64>) {
  %none = torch.constant.none
  %int4 = torch.constant.int 4
  %0 = torch.aten.sum %a, %none : !torch.vtensor<[5],si64>, !torch.none -> !torch.vtensor<[],si64>
  %1 = torch.aten.sum %b, %none : !torch.vtensor<[5],si32>, !torch.none -> !torch.vtensor<[],si32>
  %2 = torch.aten.sum %c, %none : !torch.vtensor<[5],f32>, !torch.none -> !torch.vtensor<[],f32>
  %3 = torch.aten.sum %d, %none : !torch.vtensor<[5],i1>, !torch.none -> !torch.vtensor<[],si64>
  %4 = torch.aten.sum %b, %int4 : !torch.vtensor<[5],si32>, !torch.int -> !torch.vtensor<[],si64>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[],si64>, !torch.vtensor<[],si32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],si64>
}
