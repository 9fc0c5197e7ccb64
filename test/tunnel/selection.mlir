// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=aten.softmax.int,torch.aten.add.Scalar,aten.tanh.default" | FileCheck %s --check-prefix=OVERLOAD
// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=aten.add,torch.aten.gelu" | FileCheck %s --check-prefix=PACKET
// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=*" | FileCheck %s --check-prefix=ALL

// Which ops each spelling of `ops=` selects. Every op of @mixed can be
// converted; an op not selected must stay exactly as it was.

// OVERLOAD runs ops=aten.softmax.int,torch.aten.add.Scalar,aten.tanh.default.
// An overload given selects that overload only (with or without the torch.
// prefix); `.default` names the overload without a suffix (aten.tanh).
// OVERLOAD-LABEL: func.func @mixed(
// OVERLOAD:       tosa.custom {{.*}} operator_name = "torch.aten.softmax.int"
// OVERLOAD-NOT:   tosa.custom
// OVERLOAD:       torch.aten.add.Tensor %
// OVERLOAD:       tosa.custom {{.*}} operator_name = "torch.aten.add.Scalar"
// OVERLOAD-NOT:   tosa.custom
// OVERLOAD:       torch.aten.gelu %
// OVERLOAD-NOT:   tosa.custom
// OVERLOAD:       torch.operator "torch.aten.gelu"(%
// OVERLOAD:       tosa.custom {{.*}} operator_name = "torch.aten.tanh"
// OVERLOAD-NOT:   tosa.custom
// OVERLOAD:       torch.prims.convert_element_type %
// OVERLOAD-NOT:   tosa.custom
// OVERLOAD:       return

// PACKET runs ops=aten.add,torch.aten.gelu.
// A name without an overload selects every overload (add.Tensor and
// add.Scalar); a torch.operator is selected by the name it carries.
// PACKET-LABEL: func.func @mixed(
// PACKET-NOT:   tosa.custom
// PACKET:       torch.aten.softmax.int %arg0
// PACKET:       tosa.custom {{.*}} operator_name = "torch.aten.add.Tensor"
// PACKET:       tosa.custom {{.*}} operator_name = "torch.aten.add.Scalar"
// PACKET:       tosa.custom {{.*}} operator_name = "torch.aten.gelu"
// PACKET:       tosa.custom {{.*}} operator_name = "torch.aten.gelu"
// PACKET-NOT:   tosa.custom
// PACKET:       torch.aten.tanh %
// PACKET-NOT:   tosa.custom
// PACKET:       torch.prims.convert_element_type %
// PACKET-NOT:   tosa.custom
// PACKET:       return

// ALL runs ops=*.
// `*` selects every aten and prims op; constants and lists stay.
// ALL-LABEL: func.func @mixed(
// ALL:       tosa.custom {{.*}} operator_name = "torch.aten.softmax.int"
// ALL:       tosa.custom {{.*}} operator_name = "torch.aten.add.Tensor"
// ALL:       tosa.custom {{.*}} operator_name = "torch.aten.add.Scalar"
// ALL:       tosa.custom {{.*}} operator_name = "torch.aten.gelu"
// ALL:       tosa.custom {{.*}} operator_name = "torch.aten.gelu"
// ALL:       tosa.custom {{.*}} operator_name = "torch.aten.tanh"
// ALL:       tosa.custom {{.*}} operator_name = "torch.prims.convert_element_type"
// ALL-NOT:   tosa.custom
// ALL:       return

func.func @mixed(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f16> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.softmax.int %arg0, %int1, %none : !torch.vtensor<[2,8],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,8],f32>
  %1 = torch.aten.add.Tensor %0, %arg1, %int1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  %2 = torch.aten.add.Scalar %1, %int1, %int1 : !torch.vtensor<[2,8],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,8],f32>
  %str = torch.constant.str "none"
  %3 = torch.aten.gelu %2, %str : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  %4 = torch.operator "torch.aten.gelu"(%3, %str) : (!torch.vtensor<[2,8],f32>, !torch.str) -> !torch.vtensor<[2,8],f32>
  %5 = torch.aten.tanh %4 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %int5 = torch.constant.int 5
  %6 = torch.prims.convert_element_type %5, %int5 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f16>
  return %6 : !torch.vtensor<[2,8],f16>
}
