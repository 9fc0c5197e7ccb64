// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=auto" | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --convert-torch-backend-legal-to-tosa-custom="ops=auto,aten.tanh tosa-target=none" | FileCheck %s --check-prefix=LISTED

// Auto mode tunnels exactly the instances torch-mlir's TOSA lowering cannot
// take, each tosa.custom it adds marked with why (CONTRACT.md 7.1; listed ops
// are not marked); the rest stays torch IR for TorchToTosa.

// Legal ops stay; an op TorchToTosa has no lowering for is tunneled.
// CHECK-LABEL: func.func @mixed(
// CHECK:         torch.aten.tanh
// CHECK:         tosa.custom {{.*}} {domain_name = "torch_mlir", {{.*}}operator_name = "torch.aten.atan2", tosa_custom.tunneled = "no-tosa-lowering"}
// CHECK:         torch.aten.add.Tensor
// CHECK-NOT:     tosa.custom
// LISTED-LABEL: func.func @mixed(
// LISTED:         tosa.custom {{.*}}operator_name = "torch.aten.tanh"} : (tensor<3x4xf32>)
// LISTED:         tosa.custom {{.*}}operator_name = "torch.aten.atan2", tosa_custom.tunneled = "no-tosa-lowering"}
func.func @mixed(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[3,4],f32> -> !torch.vtensor<[3,4],f32>
  %1 = torch.aten.atan2 %0, %arg1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32> -> !torch.vtensor<[3,4],f32>
  %2 = torch.aten.add.Tensor %1, %arg0, %int1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>, !torch.int -> !torch.vtensor<[3,4],f32>
  return %2 : !torch.vtensor<[3,4],f32>
}

// -----

// Per instance: x ** 2 lowers on f32, not on si64.
// CHECK-LABEL: func.func @per_instance(
// CHECK:         torch.aten.pow.Tensor_Scalar %arg0
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.pow.Tensor_Scalar", tosa_custom.tunneled = "no-tosa-lowering"}
// CHECK-NOT:     tosa.custom
func.func @per_instance(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[3,4],si64>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],si64>) {
  %int2 = torch.constant.int 2
  %0 = torch.aten.pow.Tensor_Scalar %arg0, %int2 : !torch.vtensor<[3,4],f32>, !torch.int -> !torch.vtensor<[3,4],f32>
  %1 = torch.aten.pow.Tensor_Scalar %arg1, %int2 : !torch.vtensor<[3,4],si64>, !torch.int -> !torch.vtensor<[3,4],si64>
  return %0, %1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],si64>
}

// -----

// A lowering known to compute another answer: uint8 reaching an op whose
// result depends on the sign is tunneled instead of refused; a sign-blind
// uint8 op lowers.
// CHECK-LABEL: func.func @wrong_lowering(
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.maximum", tosa_custom.tunneled = "wrong-lowering"}
// CHECK:         torch.aten.add.Tensor
func.func @wrong_lowering(%arg0: !torch.vtensor<[4],ui8>, %arg1: !torch.vtensor<[4],ui8>) -> !torch.vtensor<[4],ui8> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.maximum %arg0, %arg1 : !torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8> -> !torch.vtensor<[4],ui8>
  %1 = torch.aten.add.Tensor %0, %arg1, %int1 : !torch.vtensor<[4],ui8>, !torch.vtensor<[4],ui8>, !torch.int -> !torch.vtensor<[4],ui8>
  return %1 : !torch.vtensor<[4],ui8>
}

// -----

// Bool arithmetic: TorchToTosa's i1 add is xor.
// CHECK-LABEL: func.func @bool_add(
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.add.Tensor", tosa_custom.tunneled = "wrong-lowering"}
func.func @bool_add(%arg0: !torch.vtensor<[4],i1>, %arg1: !torch.vtensor<[4],i1>) -> !torch.vtensor<[4],i1> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %arg0, %arg1, %int1 : !torch.vtensor<[4],i1>, !torch.vtensor<[4],i1>, !torch.int -> !torch.vtensor<[4],i1>
  return %0 : !torch.vtensor<[4],i1>
}

// -----

// Nothing to tunnel: the module is unchanged.
// CHECK-LABEL: func.func @all_legal(
// CHECK-NOT:     tosa.custom
// CHECK:         torch.aten.tanh
func.func @all_legal(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[3,4],f32> -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// TOSA the target forbids (torch-mlir lowers an si64 min.dim to i64
// tosa.argmax, which no TOSA 1.0 profile has): tunneled as not-conformant,
// unless the check is off.
// CHECK-LABEL: func.func @not_conformant(
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.min.dim", tosa_custom.tunneled = "not-conformant"}
// LISTED-LABEL: func.func @not_conformant(
// LISTED-NOT:     tosa.custom
// LISTED:         torch.aten.min.dim
func.func @not_conformant(%arg0: !torch.vtensor<[3,4],si64>) -> !torch.vtensor<[3],si64> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %values, %indices = torch.aten.min.dim %arg0, %int1, %false : !torch.vtensor<[3,4],si64>, !torch.int, !torch.bool -> !torch.vtensor<[3],si64>, !torch.vtensor<[3],si64>
  return %indices : !torch.vtensor<[3],si64>
}

// -----

// A scalar computed at run time (a slice's end read from a tensor): the
// isolated probe of aten.slice.Tensor reads it from a tensor too, as here.
// A block-argument scalar crashed TorchToTosa (found by the OpInfo suite,
// tensor_split). Neither op lowers: the scalar is tunneled; the slice, whose
// size depends on the data, has no result_shapes (CONTRACT.md 15.2) and is not.
// CHECK-LABEL: func.func @slice_to_runtime_end(
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.Int.Tensor", tosa_custom.tunneled = "no-tosa-lowering"}
// CHECK:         torch.aten.slice.Tensor
func.func @slice_to_runtime_end(%arg0: !torch.vtensor<[5,5],f32>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[?,5],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %end = torch.aten.Int.Tensor %arg1 : !torch.vtensor<[],si64> -> !torch.int
  // expected-warning@+1 {{torch.aten.slice.Tensor left unconverted [dynamic-result-shape]}}
  %0 = torch.aten.slice.Tensor %arg0, %int0, %int0, %end, %int1 : !torch.vtensor<[5,5],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,5],f32>
  return %0 : !torch.vtensor<[?,5],f32>
}

// -----

// A tunneled op reads a list's run-time ints from the carriers' operands; the
// carriers and the list, now dead, are erased (TorchToTosa cannot lower a
// carrier). Found by the pass fuzzer (runtime-int).
// CHECK-LABEL: func.func @full_of_runtime_sizes(
// CHECK-NOT:     tosa_custom.carrier
// CHECK-NOT:     torch.prim.ListConstruct
// CHECK:         tosa.custom {{.*}}operator_name = "torch.aten.full", tosa_custom.tunneled = "no-tosa-lowering"} : (tensor<i64>, tensor<i64>) -> tensor<2x3xf32>
func.func @full_of_runtime_sizes(%arg0: !torch.vtensor<[],si64>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[2,3],f32> {
  %0 = torch.aten.Int.Tensor %arg0 : !torch.vtensor<[],si64> -> !torch.int
  %1 = torch.aten.Int.Tensor %arg1 : !torch.vtensor<[],si64> -> !torch.int
  %2 = torch.prim.ListConstruct %0, %1 : (!torch.int, !torch.int) -> !torch.list<int>
  %float1 = torch.constant.float 1.0
  %none = torch.constant.none
  %3 = torch.aten.full %2, %float1, %none, %none, %none, %none : !torch.list<int>, !torch.float, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[2,3],f32>
  return %3 : !torch.vtensor<[2,3],f32>
}
