// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-quantized-boundary --tosa-custom-quantized-kept-ops --tosa-custom-lower-quantized --verify-diagnostics | FileCheck %s

// A kept layer_norm between PT2E's dequantize and quantize: one custom op on
// the int8 tensors, its weight and bias (float in the model) carried as int32
// bits, the quantization of operand 0 and result 0 under "quantization"
// (contract version 5); no float tensor is left.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4xi8> {tosa_custom.quantization = {{.*}}scale = 5.000000e-01
// CHECK-NOT:     f32
// CHECK:         %[[Y:.*]] = tosa.custom %[[X]], %{{.*}}, %{{.*}} {domain_name = "torch_mlir", implementation_attrs = "{{.*}}\22operand_dtypes\22:{\221\22:\22float32\22,\222\22:\22float32\22},\22quantization\22:{\22operands\22:{\220\22:{\22dtype\22:\22int8\22,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3}},\22results\22:{\220\22:{\22dtype\22:\22int8\22,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.125,\22zero_point\22:-1}}},\22version\22:5}", operator_name = "torch.aten.layer_norm"} : (tensor<1x4xi8>, tensor<4xi32>, tensor<4xi32>) -> tensor<1x4xi8>
// CHECK:         return %[[Y]] : tensor<1x4xi8>
func.func @layer_norm(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = "tosa.const"() <{values = dense<[1.0, 2.0, 0.5, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:1}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x4xf32>) -> tensor<1x4xi8>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:1}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x4xi8>) -> tensor<1x4xf32>
  %ln = tosa.custom %dq, %w, %b {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22bias\22:{\22operand\22:2},\22cudnn_enable\22:false,\22eps\22:1e-05,\22input\22:{\22operand\22:0},\22normalized_shape\22:[4],\22weight\22:{\22operand\22:1}},\22version\22:1}", operator_name = "torch.aten.layer_norm"} : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %qy = tosa.custom %ln {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.125,\22zero_point\22:-1},\22version\22:1}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x4xf32>) -> tensor<1x4xi8>
  %out = tosa.custom %qy {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.125,\22zero_point\22:-1},\22version\22:1}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x4xi8>) -> tensor<1x4xf32>
  return %out : tensor<1x4xf32>
}

// -----

// A chain of kept ops (dummy mode): relu keeps its input's quantization, so
// the softmax before it is quantized with relu's result parameters; the
// reshape after the dequantize keeps the input's parameters.
// CHECK-LABEL: func.func @chain(
// CHECK-NOT:     f32
// CHECK:         %[[R:.*]] = tosa.custom %{{.*}} {{.*}}\22quantization\22:{\22operands\22:{\220\22:{{.*}}\22scale\22:0.5,{{.*}}\22results\22:{\220\22:{{.*}}\22scale\22:0.5,\22zero_point\22:3}}}{{.*}} operator_name = "torch.aten.reshape"} : (tensor<1x4xi8>) -> tensor<4xi8>
// CHECK:         %[[S:.*]] = tosa.custom %[[R]] {{.*}}\22results\22:{\220\22:{{.*}}\22scale\22:0.0078125,{{.*}} operator_name = "torch.aten.softmax.int"} : (tensor<4xi8>) -> tensor<4xi8>
// CHECK:         %[[U:.*]] = tosa.custom %[[S]] {{.*}} operator_name = "torch.aten.relu"} : (tensor<4xi8>) -> tensor<4xi8>
// CHECK:         return %[[U]] : tensor<4xi8>
func.func @chain(%x: tensor<1x4xf32>) -> tensor<4xf32> {
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:1}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x4xf32>) -> tensor<1x4xi8>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:1}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x4xi8>) -> tensor<1x4xf32>
  %r = tosa.custom %dq {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22self\22:{\22operand\22:0},\22shape\22:[4]},\22version\22:1}", operator_name = "torch.aten.reshape"} : (tensor<1x4xf32>) -> tensor<4xf32>
  %s = tosa.custom %r {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dim\22:0,\22dtype\22:null,\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.softmax.int"} : (tensor<4xf32>) -> tensor<4xf32>
  %u = tosa.custom %s {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22self\22:{\22operand\22:0}},\22version\22:1}", operator_name = "torch.aten.relu"} : (tensor<4xf32>) -> tensor<4xf32>
  %qu = tosa.custom %u {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.0078125,\22zero_point\22:-128},\22version\22:1}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<4xf32>) -> tensor<4xi8>
  %out = tosa.custom %qu {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.0078125,\22zero_point\22:-128},\22version\22:1}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<4xi8>) -> tensor<4xf32>
  return %out : tensor<4xf32>
}
