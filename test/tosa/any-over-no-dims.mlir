// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-any-over-no-dims | FileCheck %s

// uint8 any over no dims is x != 0 as uint8, whatever keepdim says (torch-mlir's fold returns x).
// CHECK-LABEL: func.func @uint8(
// CHECK:         %[[Z:.*]] = torch.vtensor.literal(dense<0> : tensor<ui8>) : !torch.vtensor<[],ui8>
// CHECK:         %[[NE:.*]] = torch.aten.ne.Tensor %arg0, %[[Z]] : !torch.vtensor<[3,4],ui8>, !torch.vtensor<[],ui8> -> !torch.vtensor<[3,4],i1>
// CHECK:         %[[R:.*]] = torch.aten.to.dtype %[[NE]], %int0{{.*}} -> !torch.vtensor<[3,4],ui8>
// CHECK-NOT:     torch.aten.any.dims
// CHECK:         return %[[R]]
func.func @uint8(%arg0: !torch.vtensor<[3,4],ui8>) -> !torch.vtensor<[3,4],ui8> {
  %0 = torch.prim.ListConstruct  : () -> !torch.list<int>
  %true = torch.constant.bool true
  %1 = torch.aten.any.dims %arg0, %0, %true : !torch.vtensor<[3,4],ui8>, !torch.list<int>, !torch.bool -> !torch.vtensor<[3,4],ui8>
  return %1 : !torch.vtensor<[3,4],ui8>
}

// -----

// A float operand (bool result, `?` dims kept): x != 0.0, no cast.
// CHECK-LABEL: func.func @float(
// CHECK:         %[[Z:.*]] = torch.vtensor.literal(dense<0.000000e+00> : tensor<f32>) : !torch.vtensor<[],f32>
// CHECK:         %[[NE:.*]] = torch.aten.ne.Tensor %arg0, %[[Z]] : !torch.vtensor<[?,4],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[?,4],i1>
// CHECK-NOT:     torch.aten.to.dtype
// CHECK:         return %[[NE]]
func.func @float(%arg0: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],i1> {
  %0 = torch.prim.ListConstruct  : () -> !torch.list<int>
  %false = torch.constant.bool false
  %1 = torch.aten.any.dims %arg0, %0, %false : !torch.vtensor<[?,4],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[?,4],i1>
  return %1 : !torch.vtensor<[?,4],i1>
}

// -----

// Left alone: a bool operand (the fold is right), a real reduction, and dim=None (every dim).
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     torch.aten.ne.Tensor
// CHECK-COUNT-3: torch.aten.any.dims
func.func @left_alone(%arg0: !torch.vtensor<[3,4],i1>, %arg1: !torch.vtensor<[3,4],ui8>) -> (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3],ui8>, !torch.vtensor<[],ui8>) {
  %0 = torch.prim.ListConstruct  : () -> !torch.list<int>
  %int1 = torch.constant.int 1
  %1 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %false = torch.constant.bool false
  %2 = torch.aten.any.dims %arg0, %0, %false : !torch.vtensor<[3,4],i1>, !torch.list<int>, !torch.bool -> !torch.vtensor<[3,4],i1>
  %3 = torch.aten.any.dims %arg1, %1, %false : !torch.vtensor<[3,4],ui8>, !torch.list<int>, !torch.bool -> !torch.vtensor<[3],ui8>
  %4 = torch.aten.any.dims %arg1, %none, %false : !torch.vtensor<[3,4],ui8>, !torch.none, !torch.bool -> !torch.vtensor<[],ui8>
  return %2, %3, %4 : !torch.vtensor<[3,4],i1>, !torch.vtensor<[3],ui8>, !torch.vtensor<[],ui8>
}
