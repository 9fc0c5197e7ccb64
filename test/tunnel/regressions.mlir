// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=*" | FileCheck %s

// Regressions: each case once failed (wrong category, dead IR left behind,
// a literal form the contract describes).

// Was: a non-None Generator operand (here a function argument) is reported as
// [non-constant-argument] ("argument 'generator' (Generator) is not a
// constant"), never as the documented [generator-operand]: the non-constant
// check in _encode_scalar runs before the Generator check, and a Generator is
// never a torch.constant.* op.
func.func @generator_operand(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.Generator) -> !torch.vtensor<[2,8],f32> {
  // expected-warning@+1 {{torch.aten.bernoulli left unconverted [generator-operand]}}
  %0 = torch.operator "torch.aten.bernoulli"(%arg0, %arg1) : (!torch.vtensor<[2,8],f32>, !torch.Generator) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// A signed-integer literal held in a dense_resource (the form the FX importer
// gives int64 buffers) cannot be retyped from Python (the bindings cannot read
// resource blobs), so it arrives through torch_c.to_builtin_tensor of the
// literal, which torch-mlir's TOSA lowering turns into the tosa.const
// (CONTRACT.md 3.2).
// CHECK-LABEL: func.func @signed_integer_resource_literal(
// CHECK:         %[[LIT:.*]] = torch.vtensor.literal(dense_resource<torch_tensor_2_torch.int64> : tensor<2xsi64>)
// CHECK:         %[[CAST:.*]] = torch_c.to_builtin_tensor %[[LIT]] : !torch.vtensor<[2],si64> -> tensor<2xi64>
// CHECK:         tosa.custom %{{.*}}, %[[CAST]] {{.*}} operator_name = "torch.aten.add.Tensor"} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
func.func @signed_integer_resource_literal(%arg0: !torch.vtensor<[2],si64>) -> !torch.vtensor<[2],si64> {
  %0 = torch.vtensor.literal(dense_resource<torch_tensor_2_torch.int64> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %int1 = torch.constant.int 1
  %1 = torch.aten.add.Tensor %arg0, %0, %int1 : !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>, !torch.int -> !torch.vtensor<[2],si64>
  return %1 : !torch.vtensor<[2],si64>
}
{-#
  dialect_resources: {
    builtin: {
      torch_tensor_2_torch.int64: "0x0800000001000000000000000200000000000000"
    }
  }
#-}

// -----

// Was: an op left unconverted keeps the operands built for it before the
// failure: here a torch_c.to_builtin_tensor of %arg0 (with encoding=const, also
// tosa.const ops) is left dead in the module.
// CHECK-LABEL: func.func @rejected_op_leaves_no_ir(
// CHECK-NOT:     torch_c.to_builtin_tensor
// CHECK:         torch.aten.gelu %arg0, %arg1
func.func @rejected_op_leaves_no_ir(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.str) -> !torch.vtensor<[2,8],f32> {
  // expected-warning@+1 {{torch.aten.gelu left unconverted [non-constant-argument]}}
  %0 = torch.aten.gelu %arg0, %arg1 : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Was: a result that is a tensor but not a value tensor (!torch.tensor, as a
// torch.operator may produce) is reported as [non-tensor-result]; CONTRACT.md
// §7 and an operand of the same type say [unsupported-tensor-type] ("not a
// ranked value tensor").
func.func @non_value_tensor_result(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.tensor<[2,8],f32> {
  // expected-warning@+1 {{torch.aten.tanh left unconverted [unsupported-tensor-type]}}
  %0 = torch.operator "torch.aten.tanh"(%arg0) : (!torch.vtensor<[2,8],f32>) -> !torch.tensor<[2,8],f32>
  return %0 : !torch.tensor<[2,8],f32>
}

// -----

// Was: a list of ints as a result (aten.size) is reported as [list-result],
// which CONTRACT.md §7 and SKIP_CATEGORIES reserve for lists of tensors
// (split, unbind); a number list is a non-tensor result.
func.func @int_list_result(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  // expected-warning@+1 {{torch.aten.size left unconverted [non-tensor-result]}}
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  return %0 : !torch.list<int>
}
