// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-int64-operands-as-int32 | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-int64-operands-as-int32 \
// RUN:   --tosa-attach-target="profiles=pro_fp" --tosa-validate="strict-op-spec-alignment=true" \
// RUN:   -verify-diagnostics -o /dev/null

// Dummy mode: a position-id buffer sliced by a kept op. The constant is i32
// with the same values, and the op's operand_dtypes says it is int64
// (CONTRACT.md 3.5), at contract version 4: it validates for TOSA 1.0.
// CHECK-LABEL: func.func @position_ids(
// CHECK:         %[[C:.*]] = "tosa.const"() <{values = dense<{{\[\[}}0, 1, 2, 3]]> : tensor<1x4xi32>}>
// CHECK:         tosa.custom %[[C]] {{{.*}}implementation_attrs = "{\22args\22:{\22dim\22:1,\22end\22:2,\22self\22:{\22operand\22:0},\22start\22:0,\22step\22:1},\22operand_dtypes\22:{\220\22:\22int64\22},\22version\22:4}"{{.*}}} : (tensor<1x4xi32>) -> tensor<1x2xi64>
func.func @position_ids() -> tensor<1x2xi64> {
  %c = "tosa.const"() <{values = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : () -> tensor<1x4xi64>
  %s = tosa.custom %c {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dim\22:1,\22end\22:2,\22self\22:{\22operand\22:0},\22start\22:0,\22step\22:1},\22version\22:1}", operator_name = "torch.aten.slice.Tensor"} : (tensor<1x4xi64>) -> tensor<1x2xi64>
  return %s : tensor<1x2xi64>
}

// -----

// Left as they are: a constant TOSA ops read too, and one whose values do
// not fit int32 (both then need EXT-INT64).
// CHECK-LABEL: func.func @not_carried(
// CHECK-COUNT-2: tensor<2xi64>}>
func.func @not_carried(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  // expected-error@+1 {{'tosa.const' op illegal}}
  %c = "tosa.const"() <{values = dense<[0, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error@+1 {{'tosa.add' op illegal}}
  %a = tosa.add %x, %c : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %k = tosa.custom %c {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.clone"} : (tensor<2xi64>) -> tensor<2xi64>
  // expected-error@+1 {{'tosa.const' op illegal}}
  %big = "tosa.const"() <{values = dense<[0, 4294967296]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %b = tosa.custom %big {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.clone"} : (tensor<2xi64>) -> tensor<2xi64>
  return %a, %k, %b : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
}
