// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --convert-torch-backend-legal-to-tosa-custom="ops=*" | FileCheck %s

// The default (json) encoding: every non-tensor argument is a JSON value in
// implementation_attrs; only tensors (and scalars known only at run time) are
// operands. `ops=*` selects every aten op, so each case below is converted or
// warned about. One case per split; rejected cases check the op is untouched.

// A plain Tensor argument.
// CHECK-LABEL: func.func @tensor(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @tensor(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// The same value twice: one operand per use, numbered in schema order.
// CHECK-LABEL: func.func @tensor_twice(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22alpha\22:1{{.*}}\22other\22:{\22operand\22:1}{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.add.Tensor"} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @tensor_twice(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %arg0, %arg0, %int1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// A converted op feeding another: from_builtin_tensor then to_builtin_tensor.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[R0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM2:.*]] = tosa.custom %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.relu"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R1:.*]] = torch_c.from_builtin_tensor %[[CUSTOM2]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R1]]
func.func @chain(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %1 = torch.aten.relu %0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %1 : !torch.vtensor<[2,8],f32>
}

// -----

// Tensor? given (weight) and None (bias); int[], float and bool.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[8],f32> -> tensor<8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22bias\22:null{{.*}}\22cudnn_enable\22:true{{.*}}\22eps\22:1e-05{{.*}}\22input\22:{\22operand\22:0}{{.*}}\22normalized_shape\22:[8]{{.*}}\22weight\22:{\22operand\22:1}{{.*}}", operator_name = "torch.aten.layer_norm"} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @layer_norm(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int8 = torch.constant.int 8
  %shape = torch.prim.ListConstruct %int8 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  %true = torch.constant.bool true
  %0 = torch.aten.layer_norm %arg0, %shape, %arg1, %none, %eps, %true : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.vtensor<[8],f32>, !torch.none, !torch.float, !torch.bool -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Tensor? None (weight) and given (bias): operands keep schema order.
// CHECK-LABEL: func.func @layer_norm_bias_only(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[8],f32> -> tensor<8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22bias\22:{\22operand\22:1}{{.*}}\22cudnn_enable\22:false{{.*}}\22eps\22:1e-05{{.*}}\22input\22:{\22operand\22:0}{{.*}}\22normalized_shape\22:[8]{{.*}}\22weight\22:null{{.*}}", operator_name = "torch.aten.layer_norm"} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @layer_norm_bias_only(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int8 = torch.constant.int 8
  %shape = torch.prim.ListConstruct %int8 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  %false = torch.constant.bool false
  %0 = torch.aten.layer_norm %arg0, %shape, %none, %arg1, %eps, %false : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.none, !torch.vtensor<[8],f32>, !torch.float, !torch.bool -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Tensor[]: aten.cat.
// CHECK-LABEL: func.func @cat(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[2,4],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[2,4],f32> -> tensor<2x4xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22dim\22:1{{.*}}\22tensors\22:[{\22operand\22:0},{\22operand\22:1}]{{.*}}", operator_name = "torch.aten.cat"} : (tensor<2x8xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x12xf32> -> !torch.vtensor<[2,12],f32>
// CHECK:         return %[[R0]]
func.func @cat(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,12],f32> {
  %list = torch.prim.ListConstruct %arg0, %arg1 : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,4],f32>) -> !torch.list<vtensor>
  %int1 = torch.constant.int 1
  %0 = torch.aten.cat %list, %int1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,12],f32>
  return %0 : !torch.vtensor<[2,12],f32>
}

// -----

// Tensor[]: aten.stack, with a negative int.
// CHECK-LABEL: func.func @stack(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG2:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T2:.*]] = torch_c.to_builtin_tensor %[[ARG2]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]], %[[T2]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22dim\22:-1{{.*}}\22tensors\22:[{\22operand\22:0},{\22operand\22:1},{\22operand\22:2}]{{.*}}", operator_name = "torch.aten.stack"} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8x3xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8x3xf32> -> !torch.vtensor<[2,8,3],f32>
// CHECK:         return %[[R0]]
func.func @stack(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>, %arg2: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8,3],f32> {
  %list = torch.prim.ListConstruct %arg0, %arg1, %arg2 : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>) -> !torch.list<vtensor>
  %int-1 = torch.constant.int -1
  %0 = torch.aten.stack %list, %int-1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,8,3],f32>
  return %0 : !torch.vtensor<[2,8,3],f32>
}

// -----

// Tensor?[] with a None element: aten.index.Tensor.
// CHECK-LABEL: func.func @index(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[3],si64>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[3],si64> -> tensor<3xi64>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22indices\22:[null,{\22operand\22:1}]{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.index.Tensor"} : (tensor<2x8xf32>, tensor<3xi64>) -> tensor<2x3xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x3xf32> -> !torch.vtensor<[2,3],f32>
// CHECK:         return %[[R0]]
func.func @index(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[3],si64>) -> !torch.vtensor<[2,3],f32> {
  %none = torch.constant.none
  %list = torch.prim.ListConstruct %none, %arg1 : (!torch.none, !torch.vtensor<[3],si64>) -> !torch.list<optional<vtensor>>
  %0 = torch.aten.index.Tensor %arg0, %list : !torch.vtensor<[2,8],f32>, !torch.list<optional<vtensor>> -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// Scalar given an int and a float constant.
// CHECK-LABEL: func.func @add_scalar(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22alpha\22:0.5{{.*}}\22other\22:2{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.add.Scalar"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @add_scalar(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int2 = torch.constant.int 2
  %float = torch.constant.float 5.000000e-01
  %0 = torch.aten.add.Scalar %arg0, %int2, %float : !torch.vtensor<[2,8],f32>, !torch.int, !torch.float -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Scalar given a float: aten.mul.Scalar.
// CHECK-LABEL: func.func @mul_scalar(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22other\22:0.25{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.mul.Scalar"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @mul_scalar(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %float = torch.constant.float 2.500000e-01
  %0 = torch.aten.mul.Scalar %arg0, %float : !torch.vtensor<[2,8],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Scalar given !torch.number constants.
// CHECK-LABEL: func.func @number(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22alpha\22:1.5{{.*}}\22other\22:3{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.add.Scalar"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @number(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %n = "torch.constant.number"() {value = 3 : i64} : () -> !torch.number
  %f = "torch.constant.number"() {value = 1.500000e+00 : f64} : () -> !torch.number
  %0 = torch.aten.add.Scalar %arg0, %n, %f : !torch.vtensor<[2,8],f32>, !torch.number, !torch.number -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Scalar? given an int and None.
// CHECK-LABEL: func.func @clamp_min(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22max\22:null{{.*}}\22min\22:-1{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.clamp"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @clamp_min(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int-1 = torch.constant.int -1
  %none = torch.constant.none
  %0 = torch.aten.clamp %arg0, %int-1, %none : !torch.vtensor<[2,8],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Scalar? given None and a float.
// CHECK-LABEL: func.func @clamp_max(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22max\22:6.0{{.*}}\22min\22:null{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.clamp"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @clamp_max(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %none = torch.constant.none
  %float = torch.constant.float 6.000000e+00
  %0 = torch.aten.clamp %arg0, %none, %float : !torch.vtensor<[2,8],f32>, !torch.none, !torch.float -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// str: aten.gelu approximate.
// CHECK-LABEL: func.func @gelu(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22approximate\22:\22tanh\22{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.gelu"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @gelu(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %str = torch.constant.str "tanh"
  %0 = torch.aten.gelu %arg0, %str : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// str? given: aten.div.Tensor_mode.
// CHECK-LABEL: func.func @div_floor(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22other\22:{\22operand\22:1}{{.*}}\22rounding_mode\22:\22floor\22{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.div.Tensor_mode"} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @div_floor(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %str = torch.constant.str "floor"
  %0 = torch.aten.div.Tensor_mode %arg0, %arg1, %str : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// str? None.
// CHECK-LABEL: func.func @div_none(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22other\22:{\22operand\22:1}{{.*}}\22rounding_mode\22:null{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.div.Tensor_mode"} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @div_none(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %none = torch.constant.none
  %0 = torch.aten.div.Tensor_mode %arg0, %arg1, %none : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.none -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// int[1]? given, bool, ScalarType? given (6 is float32).
// CHECK-LABEL: func.func @sum_dtype(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22dim\22:[1]{{.*}}\22dtype\22:{\22dtype\22:\22float32\22}{{.*}}\22keepdim\22:true{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.sum.dim_IntList"} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x1xf32> -> !torch.vtensor<[2,1],f32>
// CHECK:         return %[[R0]]
func.func @sum_dtype(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,1],f32> {
  %int1 = torch.constant.int 1
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %true = torch.constant.bool true
  %int6 = torch.constant.int 6
  %0 = torch.aten.sum.dim_IntList %arg0, %dims, %true, %int6 : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.int -> !torch.vtensor<[2,1],f32>
  return %0 : !torch.vtensor<[2,1],f32>
}

// -----

// int[1]? None and ScalarType? None.
// CHECK-LABEL: func.func @sum_all(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22dim\22:null{{.*}}\22dtype\22:null{{.*}}\22keepdim\22:false{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.sum.dim_IntList"} : (tensor<2x8xf32>) -> tensor<f32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<f32> -> !torch.vtensor<[],f32>
// CHECK:         return %[[R0]]
func.func @sum_all(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[],f32> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %0 = torch.aten.sum.dim_IntList %arg0, %none, %false, %none : !torch.vtensor<[2,8],f32>, !torch.none, !torch.bool, !torch.none -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// int[]: aten.permute.
// CHECK-LABEL: func.func @permute(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8,4],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8,4],f32> -> tensor<2x8x4xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22dims\22:[2,0,1]{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.permute"} : (tensor<2x8x4xf32>) -> tensor<4x2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<4x2x8xf32> -> !torch.vtensor<[4,2,8],f32>
// CHECK:         return %[[R0]]
func.func @permute(%arg0: !torch.vtensor<[2,8,4],f32>) -> !torch.vtensor<[4,2,8],f32> {
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %dims = torch.prim.ListConstruct %int2, %int0, %int1 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.permute %arg0, %dims : !torch.vtensor<[2,8,4],f32>, !torch.list<int> -> !torch.vtensor<[4,2,8],f32>
  return %0 : !torch.vtensor<[4,2,8],f32>
}

// -----

// An empty int[]: aten.amax over no dimension.
// CHECK-LABEL: func.func @empty_int_list(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22dim\22:[]{{.*}}\22keepdim\22:false{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.amax"} : (tensor<2x8xf32>) -> tensor<f32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<f32> -> !torch.vtensor<[],f32>
// CHECK:         return %[[R0]]
func.func @empty_int_list(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[],f32> {
  %dims = torch.prim.ListConstruct  : () -> !torch.list<int>
  %false = torch.constant.bool false
  %0 = torch.aten.amax %arg0, %dims, %false : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// SymInt[]? None and float[]? given: aten.upsample_nearest2d.vec.
// CHECK-LABEL: func.func @upsample(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[1,2,2,4],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[1,2,2,4],f32> -> tensor<1x2x2x4xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22input\22:{\22operand\22:0}{{.*}}\22output_size\22:null{{.*}}\22scale_factors\22:[2.0,3.0]{{.*}}", operator_name = "torch.aten.upsample_nearest2d.vec"} : (tensor<1x2x2x4xf32>) -> tensor<1x2x4x12xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<1x2x4x12xf32> -> !torch.vtensor<[1,2,4,12],f32>
// CHECK:         return %[[R0]]
func.func @upsample(%arg0: !torch.vtensor<[1,2,2,4],f32>) -> !torch.vtensor<[1,2,4,12],f32> {
  %none = torch.constant.none
  %float2 = torch.constant.float 2.000000e+00
  %float3 = torch.constant.float 3.000000e+00
  %scales = torch.prim.ListConstruct %float2, %float3 : (!torch.float, !torch.float) -> !torch.list<float>
  %0 = torch.aten.upsample_nearest2d.vec %arg0, %none, %scales : !torch.vtensor<[1,2,2,4],f32>, !torch.none, !torch.list<float> -> !torch.vtensor<[1,2,4,12],f32>
  return %0 : !torch.vtensor<[1,2,4,12],f32>
}

// -----

// bool[] and three results: aten.linear_backward, a torch.operator.
// CHECK-LABEL: func.func @bool_list(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,4],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[2,3],f32>
// CHECK-SAME:      %[[ARG2:[a-z0-9]+]]: !torch.vtensor<[3,4],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,4],f32> -> tensor<2x4xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[2,3],f32> -> tensor<2x3xf32>
// CHECK:         %[[T2:.*]] = torch_c.to_builtin_tensor %[[ARG2]] : !torch.vtensor<[3,4],f32> -> tensor<3x4xf32>
// CHECK:         %[[CUSTOM:.*]]:3 = tosa.custom %[[T0]], %[[T1]], %[[T2]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22grad_output\22:{\22operand\22:1}{{.*}}\22output_mask\22:[true,false,true]{{.*}}\22self\22:{\22operand\22:0}{{.*}}\22weight\22:{\22operand\22:2}{{.*}}", operator_name = "torch.aten.linear_backward"} : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>)
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#0 : tensor<2x4xf32> -> !torch.vtensor<[2,4],f32>
// CHECK:         %[[R1:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#1 : tensor<3x4xf32> -> !torch.vtensor<[3,4],f32>
// CHECK:         %[[R2:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#2 : tensor<3xf32> -> !torch.vtensor<[3],f32>
// CHECK:         return %[[R0]], %[[R1]], %[[R2]]
func.func @bool_list(%arg0: !torch.vtensor<[2,4],f32>, %arg1: !torch.vtensor<[2,3],f32>, %arg2: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[2,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],f32>) {
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %mask = torch.prim.ListConstruct %true, %false, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %0:3 = torch.operator "torch.aten.linear_backward"(%arg0, %arg1, %arg2, %mask) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32>, !torch.list<bool>) -> (!torch.vtensor<[2,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],f32>
}

// -----

// ScalarType?, Layout?, Device?, bool?, MemoryFormat? all given.
// CHECK-LABEL: func.func @to_copy(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22device\22:{\22device\22:\22cpu\22}{{.*}}\22dtype\22:{\22dtype\22:\22float16\22}{{.*}}\22layout\22:{\22layout\22:\22strided\22}{{.*}}\22memory_format\22:{\22memory_format\22:\22contiguous_format\22}{{.*}}\22non_blocking\22:false{{.*}}\22pin_memory\22:false{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten._to_copy"} : (tensor<2x8xf32>) -> tensor<2x8xf16>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf16> -> !torch.vtensor<[2,8],f16>
// CHECK:         return %[[R0]]
func.func @to_copy(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f16> {
  %int5 = torch.constant.int 5
  %int0 = torch.constant.int 0
  %cpu = torch.constant.device "cpu"
  %false = torch.constant.bool false
  %int0_0 = torch.constant.int 0
  %0 = torch.aten._to_copy %arg0, %int5, %int0, %cpu, %false, %false, %int0_0 : !torch.vtensor<[2,8],f32>, !torch.int, !torch.int, !torch.Device, !torch.bool, !torch.bool, !torch.int -> !torch.vtensor<[2,8],f16>
  return %0 : !torch.vtensor<[2,8],f16>
}

// -----

// Every optional None.
// CHECK-LABEL: func.func @to_copy_none(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22device\22:null{{.*}}\22dtype\22:null{{.*}}\22layout\22:null{{.*}}\22memory_format\22:null{{.*}}\22non_blocking\22:false{{.*}}\22pin_memory\22:null{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten._to_copy"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @to_copy_none(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %0 = torch.aten._to_copy %arg0, %none, %none, %none, %none, %false, %none : !torch.vtensor<[2,8],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// No tensor operand; a memory format other than contiguous.
// CHECK-LABEL: func.func @empty(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom  {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22device\22:{\22device\22:\22cpu\22}{{.*}}\22dtype\22:{\22dtype\22:\22bfloat16\22}{{.*}}\22layout\22:null{{.*}}\22memory_format\22:{\22memory_format\22:\22channels_last\22}{{.*}}\22pin_memory\22:true{{.*}}\22size\22:[2,3,4,5]{{.*}}", operator_name = "torch.aten.empty.memory_format"} : () -> tensor<2x3x4x5xbf16>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x3x4x5xbf16> -> !torch.vtensor<[2,3,4,5],bf16>
// CHECK:         return %[[R0]]
func.func @empty(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,3,4,5],bf16> {
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %int5 = torch.constant.int 5
  %size = torch.prim.ListConstruct %int2, %int3, %int4, %int5 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %int15 = torch.constant.int 15
  %none = torch.constant.none
  %cpu = torch.constant.device "cpu"
  %true = torch.constant.bool true
  %int2_0 = torch.constant.int 2
  %0 = torch.aten.empty.memory_format %size, %int15, %none, %cpu, %true, %int2_0 : !torch.list<int>, !torch.int, !torch.none, !torch.Device, !torch.bool, !torch.int -> !torch.vtensor<[2,3,4,5],bf16>
  return %0 : !torch.vtensor<[2,3,4,5],bf16>
}

// -----

// Non-finite float? values.
// CHECK-LABEL: func.func @nan_to_num(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22nan\22:{\22float\22:\22nan\22}{{.*}}\22neginf\22:{\22float\22:\22-inf\22}{{.*}}\22posinf\22:{\22float\22:\22inf\22}{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.nan_to_num"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @nan_to_num(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %nan = torch.constant.float 0x7FF8000000000000
  %inf = torch.constant.float 0x7FF0000000000000
  %ninf = torch.constant.float 0xFFF0000000000000
  %0 = torch.aten.nan_to_num %arg0, %nan, %inf, %ninf : !torch.vtensor<[2,8],f32>, !torch.float, !torch.float, !torch.float -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// A non-finite Scalar.
// CHECK-LABEL: func.func @masked_fill(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[2,8],i1>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[2,8],i1> -> tensor<2x8xi1>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22mask\22:{\22operand\22:1}{{.*}}\22self\22:{\22operand\22:0}{{.*}}\22value\22:{\22float\22:\22-inf\22}{{.*}}", operator_name = "torch.aten.masked_fill.Scalar"} : (tensor<2x8xf32>, tensor<2x8xi1>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @masked_fill(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],i1>) -> !torch.vtensor<[2,8],f32> {
  %ninf = torch.constant.float 0xFFF0000000000000
  %0 = torch.aten.masked_fill.Scalar %arg0, %arg1, %ninf : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],i1>, !torch.float -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Scalars known only at run time become 0-d tensor operands.
// CHECK-LABEL: func.func @runtime_scalar(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.int
// CHECK-SAME:      %[[ARG2:[a-z0-9]+]]: !torch.float
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[S0:.*]] = torch_c.to_f64 %[[ARG2]]
// CHECK:         %[[E0:.*]] = tensor.from_elements %[[S0]] : tensor<f64>
// CHECK:         %[[S1:.*]] = torch_c.to_i64 %[[ARG1]]
// CHECK:         %[[E1:.*]] = tensor.from_elements %[[S1]] : tensor<i64>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[E0]], %[[E1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22alpha\22:{\22operand\22:2}{{.*}}\22other\22:{\22operand\22:1}{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.add.Scalar"} : (tensor<2x8xf32>, tensor<f64>, tensor<i64>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @runtime_scalar(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.int, %arg2: !torch.float) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.add.Scalar %arg0, %arg2, %arg1 : !torch.vtensor<[2,8],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// float and bool known only at run time.
// CHECK-LABEL: func.func @runtime_float_bool(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.float
// CHECK-SAME:      %[[ARG2:[a-z0-9]+]]: !torch.bool
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[S0:.*]] = torch_c.to_f64 %[[ARG1]]
// CHECK:         %[[E0:.*]] = tensor.from_elements %[[S0]] : tensor<f64>
// CHECK:         %[[S1:.*]] = torch_c.to_i1 %[[ARG2]]
// CHECK:         %[[E1:.*]] = tensor.from_elements %[[S1]] : tensor<i1>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[E0]], %[[E1]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22input\22:{\22operand\22:0}{{.*}}\22p\22:{\22operand\22:1}{{.*}}\22train\22:{\22operand\22:2}{{.*}}", operator_name = "torch.aten.dropout"} : (tensor<2x8xf32>, tensor<f64>, tensor<i1>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @runtime_float_bool(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.float, %arg2: !torch.bool) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.dropout %arg0, %arg1, %arg2 : !torch.vtensor<[2,8],f32>, !torch.float, !torch.bool -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// An int[] element known only at run time (a function argument).
// CHECK-LABEL: func.func @runtime_list_element(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[N:[a-z0-9]+]]: !torch.int
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[S0:.*]] = torch_c.to_i64 %[[N]]
// CHECK:         %[[E0:.*]] = tensor.from_elements %[[S0]] : tensor<i64>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[E0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22self\22:{\22operand\22:0}{{.*}}\22size\22:[{\22operand\22:1},8]{{.*}}", operator_name = "torch.aten.view"} : (tensor<2x8xf32>, tensor<i64>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @runtime_list_element(%arg0: !torch.vtensor<[2,8],f32>, %n: !torch.int) -> !torch.vtensor<[2,8],f32> {
  %int8 = torch.constant.int 8
  %size = torch.prim.ListConstruct %n, %int8 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.view %arg0, %size : !torch.vtensor<[2,8],f32>, !torch.list<int> -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// Three results.
// CHECK-LABEL: func.func @native_layer_norm(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[8],f32>
// CHECK-SAME:      %[[ARG2:[a-z0-9]+]]: !torch.vtensor<[8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[8],f32> -> tensor<8xf32>
// CHECK:         %[[T2:.*]] = torch_c.to_builtin_tensor %[[ARG2]] : !torch.vtensor<[8],f32> -> tensor<8xf32>
// CHECK:         %[[CUSTOM:.*]]:3 = tosa.custom %[[T0]], %[[T1]], %[[T2]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22bias\22:{\22operand\22:2}{{.*}}\22eps\22:1e-05{{.*}}\22input\22:{\22operand\22:0}{{.*}}\22normalized_shape\22:[8]{{.*}}\22weight\22:{\22operand\22:1}{{.*}}", operator_name = "torch.aten.native_layer_norm"} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#0 : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         %[[R1:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#1 : tensor<2x1xf32> -> !torch.vtensor<[2,1],f32>
// CHECK:         %[[R2:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#2 : tensor<2x1xf32> -> !torch.vtensor<[2,1],f32>
// CHECK:         return %[[R0]], %[[R1]], %[[R2]]
func.func @native_layer_norm(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.vtensor<[8],f32>) -> (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],f32>) {
  %int8 = torch.constant.int 8
  %shape = torch.prim.ListConstruct %int8 : (!torch.int) -> !torch.list<int>
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.aten.native_layer_norm %arg0, %shape, %arg1, %arg2, %eps : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.float -> !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],f32>
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],f32>
}

// -----

// Two results of different element types.
// CHECK-LABEL: func.func @max_dim(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]]:2 = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22dim\22:1{{.*}}\22keepdim\22:false{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.max.dim"} : (tensor<2x8xf32>) -> (tensor<2xf32>, tensor<2xi64>)
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#0 : tensor<2xf32> -> !torch.vtensor<[2],f32>
// CHECK:         %[[R1:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#1 : tensor<2xi64> -> !torch.vtensor<[2],si64>
// CHECK:         return %[[R0]], %[[R1]]
func.func @max_dim(%arg0: !torch.vtensor<[2,8],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],si64>) {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %values, %indices = torch.aten.max.dim %arg0, %int1, %false : !torch.vtensor<[2,8],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2],f32>, !torch.vtensor<[2],si64>
  return %values, %indices : !torch.vtensor<[2],f32>, !torch.vtensor<[2],si64>
}

// -----

// CHECK-LABEL: func.func @topk(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]]:2 = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22dim\22:-1{{.*}}\22k\22:3{{.*}}\22largest\22:true{{.*}}\22self\22:{\22operand\22:0}{{.*}}\22sorted\22:true{{.*}}", operator_name = "torch.aten.topk"} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#0 : tensor<2x3xf32> -> !torch.vtensor<[2,3],f32>
// CHECK:         %[[R1:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]#1 : tensor<2x3xi64> -> !torch.vtensor<[2,3],si64>
// CHECK:         return %[[R0]], %[[R1]]
func.func @topk(%arg0: !torch.vtensor<[2,8],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>) {
  %int3 = torch.constant.int 3
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %values, %indices = torch.aten.topk %arg0, %int3, %int-1, %true, %true : !torch.vtensor<[2,8],f32>, !torch.int, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>
  return %values, %indices : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>
}

// -----

// A torch.vtensor.literal operand becomes a tosa.const.
// CHECK-LABEL: func.func @literal(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,3],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,3],f32> -> tensor<2x3xf32>
// CHECK:         %[[CONST0:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}> : () -> tensor<3xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[CONST0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22alpha\22:1{{.*}}\22other\22:{\22operand\22:1}{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.add.Tensor"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x3xf32> -> !torch.vtensor<[2,3],f32>
// CHECK:         return %[[R0]]
func.func @literal(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %lit = torch.vtensor.literal(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>) : !torch.vtensor<[3],f32>
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %arg0, %lit, %int1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// Signed-integer literals: the tosa.const holds the same elements with the
// signless type (si64 -> i64).
// CHECK-LABEL: func.func @signed_integer_literal(
// CHECK:         %[[CONST0:.*]] = "tosa.const"() <{values = dense<[1, -2]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[CONST0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.neg"} : (tensor<2xi64>) -> tensor<2xi64>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2xi64> -> !torch.vtensor<[2],si64>
// CHECK:         return %[[R0]]
func.func @signed_integer_literal() -> !torch.vtensor<[2],si64> {
  %0 = torch.vtensor.literal(dense<[1, -2]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %1 = torch.aten.neg %0 : !torch.vtensor<[2],si64> -> !torch.vtensor<[2],si64>
  return %1 : !torch.vtensor<[2],si64>
}

// -----

// A splat si32 literal.
// CHECK-LABEL: func.func @signed_integer_splat_literal(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,3],si32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,3],si32> -> tensor<2x3xi32>
// CHECK:         %[[CONST0:.*]] = "tosa.const"() <{values = dense<7> : tensor<2x3xi32>}> : () -> tensor<2x3xi32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[CONST0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22alpha\22:1{{.*}}\22other\22:{\22operand\22:1}{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.add.Tensor"} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x3xi32> -> !torch.vtensor<[2,3],si32>
// CHECK:         return %[[R0]]
func.func @signed_integer_splat_literal(%arg0: !torch.vtensor<[2,3],si32>) -> !torch.vtensor<[2,3],si32> {
  %0 = torch.vtensor.literal(dense<7> : tensor<2x3xsi32>) : !torch.vtensor<[2,3],si32>
  %int1 = torch.constant.int 1
  %1 = torch.aten.add.Tensor %arg0, %0, %int1 : !torch.vtensor<[2,3],si32>, !torch.vtensor<[2,3],si32>, !torch.int -> !torch.vtensor<[2,3],si32>
  return %1 : !torch.vtensor<[2,3],si32>
}

// -----

// A torch.operator whose name PyTorch knows.
// CHECK-LABEL: func.func @operator_known(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22approximate\22:\22none\22{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.gelu"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @operator_known(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %str = torch.constant.str "none"
  %0 = torch.operator "torch.aten.gelu"(%arg0, %str) : (!torch.vtensor<[2,8],f32>, !torch.str) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// A None Generator is fine.
// CHECK-LABEL: func.func @generator_none(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22generator\22:null{{.*}}\22self\22:{\22operand\22:0}{{.*}}", operator_name = "torch.aten.bernoulli"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R0]]
func.func @generator_none(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %none = torch.constant.none
  %0 = torch.operator "torch.aten.bernoulli"(%arg0, %none) : (!torch.vtensor<[2,8],f32>, !torch.none) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @operator_unknown(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.operator "torch.mylib.foo"(%[[ARG0]])
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @operator_unknown(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  // expected-warning@+1 {{torch.mylib.foo left unconverted [unknown-op]: torch.mylib.foo has no schema in torch.ops}}
  %0 = torch.operator "torch.mylib.foo"(%arg0) : (!torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @operator_wrong_arity(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.operator "torch.aten.gelu"(%[[ARG0]])
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @operator_wrong_arity(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  // expected-warning@+1 {{torch.aten.gelu left unconverted [unknown-op]: torch.aten.gelu has 1 operands but its schema has 2 arguments}}
  %0 = torch.operator "torch.aten.gelu"(%arg0) : (!torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @mutating(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.operator "torch.aten.add_.Tensor"(%[[ARG0]], %[[ARG1]], %int1)
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @mutating(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  // expected-warning@+1 {{torch.aten.add_.Tensor left unconverted [mutating-op]: torch.aten.add_.Tensor mutates its operands}}
  %0 = torch.operator "torch.aten.add_.Tensor"(%arg0, %arg1, %int1) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.int) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @generator(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.Generator
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.operator "torch.aten.bernoulli"(%[[ARG0]], %[[ARG1]])
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @generator(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.Generator) -> !torch.vtensor<[2,8],f32> {
  // expected-warning@+1 {{torch.aten.bernoulli left unconverted [}}
  %0 = torch.operator "torch.aten.bernoulli"(%arg0, %arg1) : (!torch.vtensor<[2,8],f32>, !torch.Generator) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @non_tensor_result(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.aten.size %[[ARG0]]
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @non_tensor_result(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.list<int> {
  %int1 = torch.constant.int 1
  // expected-warning@+1 {{torch.aten.size left unconverted [non-tensor-result]: result #0 of torch.aten.size has type !torch.list<int>}}
  %0 = torch.aten.size %arg0 : !torch.vtensor<[2,8],f32> -> !torch.list<int>
  return %0 : !torch.list<int>
}

// -----

// CHECK-LABEL: func.func @list_result_split(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[4,8],f32>
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.aten.split.Tensor %[[ARG0]], %int2, %int0
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @list_result_split(%arg0: !torch.vtensor<[4,8],f32>) -> !torch.list<vtensor> {
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  // expected-warning@+1 {{torch.aten.split.Tensor left unconverted [list-result]: result #0 of torch.aten.split.Tensor has type !torch.list<vtensor>}}
  %0 = torch.aten.split.Tensor %arg0, %int2, %int0 : !torch.vtensor<[4,8],f32>, !torch.int, !torch.int -> !torch.list<vtensor>
  return %0 : !torch.list<vtensor>
}

// -----

// CHECK-LABEL: func.func @list_result_unbind(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[4,8],f32>
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.aten.unbind.int %[[ARG0]], %int0
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @list_result_unbind(%arg0: !torch.vtensor<[4,8],f32>) -> !torch.list<vtensor> {
  %int0 = torch.constant.int 0
  // expected-warning@+1 {{torch.aten.unbind.int left unconverted [list-result]: result #0 of torch.aten.unbind.int has type !torch.list<vtensor>}}
  %0 = torch.aten.unbind.int %arg0, %int0 : !torch.vtensor<[4,8],f32>, !torch.int -> !torch.list<vtensor>
  return %0 : !torch.list<vtensor>
}

// -----

// Batch norm in inference (a torch.operator): the empty save_mean and
// save_invstd results are unused, so they are dropped (dropped_results, §3.4).
// CHECK-LABEL: func.func @dropped_results(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,3,4],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[3],f32>
// CHECK-SAME:      %[[ARG2:[a-z0-9]+]]: !torch.vtensor<[3],f32>
// CHECK-SAME:      %[[ARG3:[a-z0-9]+]]: !torch.vtensor<[3],f32>
// CHECK-SAME:      %[[ARG4:[a-z0-9]+]]: !torch.vtensor<[3],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[ARG0]] : !torch.vtensor<[2,3,4],f32> -> tensor<2x3x4xf32>
// CHECK:         %[[T1:.*]] = torch_c.to_builtin_tensor %[[ARG1]] : !torch.vtensor<[3],f32> -> tensor<3xf32>
// CHECK:         %[[T2:.*]] = torch_c.to_builtin_tensor %[[ARG2]] : !torch.vtensor<[3],f32> -> tensor<3xf32>
// CHECK:         %[[T3:.*]] = torch_c.to_builtin_tensor %[[ARG3]] : !torch.vtensor<[3],f32> -> tensor<3xf32>
// CHECK:         %[[T4:.*]] = torch_c.to_builtin_tensor %[[ARG4]] : !torch.vtensor<[3],f32> -> tensor<3xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]], %[[T1]], %[[T2]], %[[T3]], %[[T4]] {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22bias\22:{\22operand\22:2}{{.*}}\22eps\22:1e-05{{.*}}\22input\22:{\22operand\22:0}{{.*}}\22momentum\22:0.1{{.*}}\22running_mean\22:{\22operand\22:3}{{.*}}\22running_var\22:{\22operand\22:4}{{.*}}\22weight\22:{\22operand\22:1}{{.*}}\22dropped_results\22:[1,2]{{.*}}", operator_name = "torch.aten._native_batch_norm_legit_no_training"} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x3x4xf32> -> !torch.vtensor<[2,3,4],f32>
// CHECK:         return %[[R0]]
func.func @dropped_results(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[3],f32>, %arg3: !torch.vtensor<[3],f32>, %arg4: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32> {
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.operator "torch.aten._native_batch_norm_legit_no_training"(%arg0, %arg1, %arg2, %arg3, %arg4, %momentum, %eps) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.float, !torch.float) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>)
  return %0#0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// The same op with save_mean used: a used zero-size result is an empty tensor
// made in place (CONTRACT.md 3.4), not a result of the custom op.
// CHECK-LABEL: func.func @zero_size_result_used(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,3,4],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.vtensor<[3],f32>
// CHECK-SAME:      %[[ARG2:[a-z0-9]+]]: !torch.vtensor<[3],f32>
// CHECK-SAME:      %[[ARG3:[a-z0-9]+]]: !torch.vtensor<[3],f32>
// CHECK-SAME:      %[[ARG4:[a-z0-9]+]]: !torch.vtensor<[3],f32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom {{.*}}\22dropped_results\22:[1,2]{{.*}} -> tensor<2x3x4xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<0xf32>
// CHECK:         %[[R1:.*]] = torch_c.from_builtin_tensor %[[EMPTY]] : tensor<0xf32> -> !torch.vtensor<[0],f32>
// CHECK:         return %[[R0]], %[[R1]]
func.func @zero_size_result_used(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[3],f32>, %arg3: !torch.vtensor<[3],f32>, %arg4: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[0],f32>) {
  %momentum = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  %0:3 = torch.operator "torch.aten._native_batch_norm_legit_no_training"(%arg0, %arg1, %arg2, %arg3, %arg4, %momentum, %eps) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.float, !torch.float) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[0],f32>
}

// -----

// A zero-size operand is written as its shape and dtype (CONTRACT.md 3.4);
// the op says contract version 2.
// CHECK-LABEL: func.func @zero_size_operand(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[0,8],f32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom {{.*}}\22self\22:{\22dtype\22:\22float32\22,\22empty\22:[0,8]}{{.*}}\22version\22:2{{.*}} -> tensor<8xf32>
// CHECK:         %[[R0:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]]
// CHECK:         return %[[R0]]
func.func @zero_size_operand(%arg0: !torch.vtensor<[0,8],f32>) -> !torch.vtensor<[8],f32> {
  %int0 = torch.constant.int 0
  %dims = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.sum.dim_IntList %arg0, %dims, %false, %none : !torch.vtensor<[0,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[8],f32>
  return %0 : !torch.vtensor<[8],f32>
}

// -----

// A zero-size tensor whose other dims are dynamic cannot be described.
// CHECK-LABEL: func.func @zero_size(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[?,0],f32>
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.aten.tanh %[[ARG0]]
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @zero_size(%arg0: !torch.vtensor<[?,0],f32>) -> !torch.vtensor<[?,0],f32> {
  // expected-warning@+1 {{torch.aten.tanh left unconverted [zero-size-tensor]: result #0 of torch.aten.tanh has zero-size type !torch.vtensor<[?,0],f32> with dynamic dims}}
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[?,0],f32> -> !torch.vtensor<[?,0],f32>
  return %0 : !torch.vtensor<[?,0],f32>
}

// -----

// Complex tensors travel as view_as_real's float tensor (CONTRACT.md 3.5).
// CHECK-LABEL: func.func @complex(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],complex<f32>>
// CHECK:         %[[REAL:.*]] = torch.aten.view_as_real %[[ARG0]] {tosa_custom.carrier = "operand"} : !torch.vtensor<[2,8],complex<f32>> -> !torch.vtensor<[2,8,2],f32>
// CHECK:         %[[T0:.*]] = torch_c.to_builtin_tensor %[[REAL]] : !torch.vtensor<[2,8,2],f32> -> tensor<2x8x2xf32>
// CHECK:         %[[CUSTOM:.*]] = tosa.custom %[[T0]] {{.*}}\22operand_dtypes\22:{\220\22:\22complex64\22},\22result_dtypes\22:{\220\22:\22complex64\22},\22version\22:2{{.*}} : (tensor<2x8x2xf32>) -> tensor<2x8x2xf32>
// CHECK:         %[[PAIRS:.*]] = torch_c.from_builtin_tensor %[[CUSTOM]] : tensor<2x8x2xf32> -> !torch.vtensor<[2,8,2],f32>
// CHECK:         %[[R0:.*]] = torch.aten.view_as_complex %[[PAIRS]] {tosa_custom.carrier = "result"}
// CHECK:         return %[[R0]]
func.func @complex(%arg0: !torch.vtensor<[2,8],complex<f32>>) -> !torch.vtensor<[2,8],complex<f32>> {
  %0 = torch.aten.tanh %arg0 : !torch.vtensor<[2,8],complex<f32>> -> !torch.vtensor<[2,8],complex<f32>>
  return %0 : !torch.vtensor<[2,8],complex<f32>>
}

// -----

// CHECK-LABEL: func.func @unranked(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.aten.tanh %[[ARG0]]
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @unranked(%arg0: !torch.vtensor) -> !torch.vtensor<[2,8],f32> {
  // expected-warning@+1 {{torch.aten.tanh left unconverted [unsupported-tensor-type]: argument 'self' has type !torch.vtensor, not a ranked !torch.vtensor}}
  %0 = torch.aten.tanh %arg0 : !torch.vtensor -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @non_constant_str(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.str
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.aten.gelu %[[ARG0]], %[[ARG1]]
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @non_constant_str(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.str) -> !torch.vtensor<[2,8],f32> {
  // expected-warning@+1 {{torch.aten.gelu left unconverted [non-constant-argument]: argument 'approximate' (str) is not a constant: !torch.str}}
  %0 = torch.aten.gelu %arg0, %arg1 : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @non_constant_dtype(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.vtensor<[2,8],f32>
// CHECK-SAME:      %[[ARG1:[a-z0-9]+]]: !torch.int
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.aten.sum.dim_IntList %[[ARG0]], %{{[0-9]+}}, %true, %[[ARG1]]
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @non_constant_dtype(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.int) -> !torch.vtensor<[2,1],f32> {
  %int1 = torch.constant.int 1
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %true = torch.constant.bool true
  // expected-warning@+1 {{torch.aten.sum.dim_IntList left unconverted [non-constant-argument]: argument 'dtype' (dtype) is not a constant: !torch.int}}
  %0 = torch.aten.sum.dim_IntList %arg0, %dims, %true, %arg1 : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.int -> !torch.vtensor<[2,1],f32>
  return %0 : !torch.vtensor<[2,1],f32>
}

// -----

// CHECK-LABEL: func.func @non_constant_list(
// CHECK-SAME:      %[[ARG0:[a-z0-9]+]]: !torch.list<vtensor>
// CHECK-NOT:     tosa.custom
// CHECK:         %[[OP:.*]] = torch.aten.cat %[[ARG0]], %int1
// CHECK-NOT:     tosa.custom
// CHECK:         return %[[OP]]
func.func @non_constant_list(%arg0: !torch.list<vtensor>) -> !torch.vtensor<[2,12],f32> {
  %int1 = torch.constant.int 1
  // expected-warning@+1 {{torch.aten.cat left unconverted [non-constant-argument]: argument 'tensors' (Tensor[]) is not built by torch.prim.ListConstruct}}
  %0 = torch.aten.cat %arg0, %int1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,12],f32>
  return %0 : !torch.vtensor<[2,12],f32>
}
