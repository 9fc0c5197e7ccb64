// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=* strict=true" | FileCheck %s

// strict=true: a selected op the contract cannot carry is an error (same text
// as the warning of the default mode) and the pass fails; ops that can be
// converted are converted as usual.

// CHECK-LABEL: func.func @converted(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22approximate\22:\22tanh\22{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.gelu"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
// Failing splits print nothing.
// CHECK-NOT:     func.func
func.func @converted(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %str = torch.constant.str "tanh"
  %0 = torch.aten.gelu %arg0, %str : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

func.func @unknown_op(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  // expected-error@+1 {{torch.mylib.foo left unconverted [unknown-op]: torch.mylib.foo has no schema in torch.ops}}
  %0 = torch.operator "torch.mylib.foo"(%arg0) : (!torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

func.func @mutating_op(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  // expected-error@+1 {{torch.aten.add_.Tensor left unconverted [mutating-op]: torch.aten.add_.Tensor mutates its operands}}
  %0 = torch.operator "torch.aten.add_.Tensor"(%arg0, %arg1, %int1) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.int) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// The category is checked in known-bugs.mlir.
func.func @generator(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.Generator) -> !torch.vtensor<[2,8],f32> {
  // expected-error@+1 {{torch.aten.bernoulli left unconverted [}}
  %0 = torch.operator "torch.aten.bernoulli"(%arg0, %arg1) : (!torch.vtensor<[2,8],f32>, !torch.Generator) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

func.func @non_tensor_result(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  %int1 = torch.constant.int 1
  // expected-error@+1 {{torch.aten.size left unconverted [non-tensor-result]: result #0 of torch.aten.size has type !torch.list<int>}}
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  return %0 : !torch.list<int>
}

// -----

func.func @list_result(%arg0: !torch.vtensor<[4,8],f32>) -> !torch.list<vtensor> {
  %int0 = torch.constant.int 0
  // expected-error@+1 {{torch.aten.unbind.int left unconverted [list-result]: result #0 of torch.aten.unbind.int has type !torch.list<vtensor> and is used other than by torch.prim.ListUnpack}}
  %0 = torch.aten.unbind.int %arg0, %int0 : !torch.vtensor<[4,8],f32>, !torch.int -> !torch.list<vtensor>
  return %0 : !torch.list<vtensor>
}

// -----

// A schema argument type the contract has no kind for.
func.func @unsupported_argument_type(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[1,3,4],f32>, %arg2: !torch.list<any>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[1,3,4],f32>) {
  %true = torch.constant.bool true
  %int1 = torch.constant.int 1
  %float0 = torch.constant.float 0.000000e+00
  %false = torch.constant.bool false
  // expected-error@+1 {{torch.aten.quantized_gru.input left unconverted [unsupported-argument-type]: argument 'params' has type List[__torch__.torch.classes.rnn.CellParamsBase]}}
  %0:2 = torch.operator "torch.aten.quantized_gru.input"(%arg0, %arg1, %arg2, %true, %int1, %float0, %false, %false, %false) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[1,3,4],f32>, !torch.list<any>, !torch.bool, !torch.int, !torch.float, !torch.bool, !torch.bool, !torch.bool) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[1,3,4],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[1,3,4],f32>
}

// -----

// A dtype number c10 does not define.
func.func @unknown_dtype(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  %int99 = torch.constant.int 99
  // expected-error@+1 {{torch.aten.softmax.int left unconverted [unsupported-argument-type]: argument 'dtype' = 99 is not a known dtype}}
  %0 = torch.aten.softmax.int %arg0, %int1, %int99 : !torch.vtensor<[2,8],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// A constant of the wrong kind for its argument (a torch.operator is not type-checked).
func.func @wrong_constant_kind(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  // expected-error@+1 {{torch.aten.gelu left unconverted [unsupported-argument-type]: argument 'approximate' = 1 is not a str}}
  %0 = torch.operator "torch.aten.gelu"(%arg0, %int1) : (!torch.vtensor<[2,8],f32>, !torch.int) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

func.func @non_constant_argument(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.str) -> !torch.vtensor<[2,8],f32> {
  // expected-error@+1 {{torch.aten.gelu left unconverted [non-constant-argument]: argument 'approximate' (str) is not a constant: !torch.str}}
  %0 = torch.aten.gelu %arg0, %arg1 : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

func.func @unsupported_tensor_type(%arg0: !torch.vtensor<[2,8],complex<f16>>) -> !torch.vtensor<[2,8],complex<f16>> {
  // expected-error@+1 {{torch.aten.tanh left unconverted [unsupported-tensor-type]: result #0 of torch.aten.tanh has element type complex<f16>, which the contract cannot carry}}
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],complex<f16>> -> !torch.vtensor<[2,8],complex<f16>>
  return %0 : !torch.vtensor<[2,8],complex<f16>>
}

// -----

func.func @zero_size_tensor(%arg0: !torch.vtensor<[?,0],f32>) -> !torch.vtensor<[?,0],f32> {
  // expected-error@+1 {{torch.aten.neg left unconverted [zero-size-tensor]: result #0 of torch.aten.neg has zero-size type !torch.vtensor<[?,0],f32> with dynamic dims}}
  %0 = torch.aten.neg %arg0 : !torch.vtensor<[?,0],f32> -> !torch.vtensor<[?,0],f32>
  return %0 : !torch.vtensor<[?,0],f32>
}

// -----

// Every failure in the module is reported, not only the first.
func.func @every_error_reported(%arg0: !torch.vtensor<[?,0],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> (!torch.vtensor<[?,0],f32>, !torch.list<int>) {
  // expected-error@+1 {{torch.aten.tanh left unconverted [zero-size-tensor]}}
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[?,0],f32> -> !torch.vtensor<[?,0],f32>
  %int1 = torch.constant.int 1
  // expected-error@+1 {{torch.aten.size left unconverted [non-tensor-result]}}
  %1 = torch.aten.size %arg1 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  return %0, %1 : !torch.vtensor<[?,0],f32>, !torch.list<int>
}

// -----

// A failing split does not stop the next one.
// CHECK-LABEL: func.func @converted_after_failures(
// CHECK:         tosa.custom {{.*}} operator_name = "torch.aten.tanh"
func.func @converted_after_failures(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}
