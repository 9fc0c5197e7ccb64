// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-scalar-comparisons | FileCheck %s

// int8/int16/uint8 compared with an integer: with a 0-d tensor of their type (TorchToTosa would cast to i64).
// CHECK-LABEL: func.func @narrow(
// CHECK:         %[[A:.*]] = torch.vtensor.literal(dense<3> : tensor<si8>) : !torch.vtensor<[],si8>
// CHECK:         torch.aten.eq.Tensor %arg0, %[[A]] : !torch.vtensor<[4],si8>, !torch.vtensor<[],si8> -> !torch.vtensor<[4],i1>
// CHECK:         %[[B:.*]] = torch.vtensor.literal(dense<-300> : tensor<si16>) : !torch.vtensor<[],si16>
// CHECK:         torch.aten.gt.Tensor %arg1, %[[B]] : !torch.vtensor<[?],si16>, !torch.vtensor<[],si16> -> !torch.vtensor<[?],i1>
// CHECK:         %[[C:.*]] = torch.vtensor.literal(dense<255> : tensor<ui8>) : !torch.vtensor<[],ui8>
// CHECK:         torch.aten.ne.Tensor %arg2, %[[C]] : !torch.vtensor<[4],ui8>, !torch.vtensor<[],ui8> -> !torch.vtensor<[4],i1>
// CHECK-NOT:     .Scalar
func.func @narrow(%arg0: !torch.vtensor<[4],si8>, %arg1: !torch.vtensor<[?],si16>, %arg2: !torch.vtensor<[4],ui8>) -> (!torch.vtensor<[4],i1>, !torch.vtensor<[?],i1>, !torch.vtensor<[4],i1>) {
  %int3 = torch.constant.int 3
  %int-300 = torch.constant.int -300
  %int255 = torch.constant.int 255
  %0 = torch.aten.eq.Scalar %arg0, %int3 : !torch.vtensor<[4],si8>, !torch.int -> !torch.vtensor<[4],i1>
  %1 = torch.aten.gt.Scalar %arg1, %int-300 : !torch.vtensor<[?],si16>, !torch.int -> !torch.vtensor<[?],i1>
  %2 = torch.aten.ne.Scalar %arg2, %int255 : !torch.vtensor<[4],ui8>, !torch.int -> !torch.vtensor<[4],i1>
  return %0, %1, %2 : !torch.vtensor<[4],i1>, !torch.vtensor<[?],i1>, !torch.vtensor<[4],i1>
}

// -----

// A number the type cannot hold is wrapped to it, as eager does: int8 x < 1000 is x < -24, uint8 x == -1 is x == 255.
// CHECK-LABEL: func.func @wrapped(
// CHECK:         torch.vtensor.literal(dense<-24> : tensor<si8>)
// CHECK:         torch.aten.lt.Tensor
// CHECK:         torch.vtensor.literal(dense<255> : tensor<ui8>)
// CHECK:         torch.aten.eq.Tensor
func.func @wrapped(%arg0: !torch.vtensor<[4],si8>, %arg1: !torch.vtensor<[4],ui8>) -> (!torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>) {
  %int1000 = torch.constant.int 1000
  %int-1 = torch.constant.int -1
  %0 = torch.aten.lt.Scalar %arg0, %int1000 : !torch.vtensor<[4],si8>, !torch.int -> !torch.vtensor<[4],i1>
  %1 = torch.aten.eq.Scalar %arg1, %int-1 : !torch.vtensor<[4],ui8>, !torch.int -> !torch.vtensor<[4],i1>
  return %0, %1 : !torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>
}

// -----

// An int32 tensor and a number beyond int32: wrapped too (2**32 + 5 is 5; TorchToTosa compared it unwrapped).
// CHECK-LABEL: func.func @int32(
// CHECK:         %[[A:.*]] = torch.vtensor.literal(dense<5> : tensor<si32>) : !torch.vtensor<[],si32>
// CHECK:         torch.aten.lt.Tensor %arg0, %[[A]]
func.func @int32(%arg0: !torch.vtensor<[4],si32>) -> !torch.vtensor<[4],i1> {
  %int = torch.constant.int 4294967301
  %0 = torch.aten.lt.Scalar %arg0, %int : !torch.vtensor<[4],si32>, !torch.int -> !torch.vtensor<[4],i1>
  return %0 : !torch.vtensor<[4],i1>
}

// -----

// Left alone: an int64 tensor (no number is beyond it), a float number (eager promotes the tensor), a number
// known only at run time, a uint8 ordering (refused or tunneled later, by the name written).
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-4: .Scalar
// CHECK-NOT:     .Tensor
func.func @left_alone(%arg1: !torch.vtensor<[4],si64>, %arg2: !torch.vtensor<[4],si8>, %n: !torch.int, %arg3: !torch.vtensor<[4],ui8>) -> (!torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>) {
  %int3 = torch.constant.int 3
  %float = torch.constant.float 2.5
  %1 = torch.aten.eq.Scalar %arg1, %int3 : !torch.vtensor<[4],si64>, !torch.int -> !torch.vtensor<[4],i1>
  %2 = torch.aten.gt.Scalar %arg2, %float : !torch.vtensor<[4],si8>, !torch.float -> !torch.vtensor<[4],i1>
  %3 = torch.aten.gt.Scalar %arg2, %n : !torch.vtensor<[4],si8>, !torch.int -> !torch.vtensor<[4],i1>
  %4 = torch.aten.gt.Scalar %arg3, %int3 : !torch.vtensor<[4],ui8>, !torch.int -> !torch.vtensor<[4],i1>
  return %1, %2, %3, %4 : !torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>
}
