// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-quantized-boundary --tosa-custom-lower-quantized --verify-diagnostics | FileCheck %s

// A 2x2 average pool whose output keeps its input's parameters (PT2E's
// quantizers share them): the window's sum (a depthwise convolution by ones,
// the zero point subtracted) divided by 4 with ties to even, as PT2E's
// torch.round does, in integer ops; then the zero point, in one RESCALE by 1.
// CHECK-LABEL: func.func @avg_pool_shared(
// CHECK-NOT:     f32
// CHECK:         %[[ONES:.*]] = "tosa.const"() <{values = dense<1> : tensor<2x2x1x1xi8>}>
// CHECK:         %[[SUM:.*]] = tosa.depthwise_conv2d %{{.*}}, %[[ONES]], {{.*}}stride = array<i64: 2, 2>{{.*}} -> tensor<1x1x1x1xi32>
// CHECK:         %[[HALF:.*]] = "tosa.const"() <{values = dense<2> : tensor<1x1x1x1xi32>}>
// CHECK:         %[[A:.*]] = tosa.add %[[SUM]], %[[HALF]]
// CHECK:         %[[Q:.*]] = tosa.intdiv %[[A]], %{{.*}}
// CHECK:         tosa.greater
// CHECK:         tosa.equal
// CHECK:         tosa.bitwise_and
// CHECK:         %[[EVEN:.*]] = tosa.sub
// CHECK:         tosa.rescale %[[EVEN]], {{.*}}per_channel = false{{.*}} -> tensor<1x1x1x1xi8>
func.func @avg_pool_shared(%x: tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xi8>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x2x2x1xi8>) -> tensor<1x2x2x1xf32>
  %p = tosa.avg_pool2d %dq, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  %qp = tosa.custom %p {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xi8>
  %out = tosa.custom %qp {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x1x1x1xi8>) -> tensor<1x1x1x1xf32>
  return %out : tensor<1x1x1x1xf32>
}

// -----

// The same pool read in float (a quantizer that leaves its output
// unquantized): AVG_POOL2D on the integers, its result standing for the
// average at the input's scale.
// CHECK-LABEL: func.func @avg_pool_float_result(
// CHECK:         tosa.avg_pool2d %{{.*}} : (tensor<1x2x2x1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x1xi8>
// CHECK-NOT:     tosa.intdiv
func.func @avg_pool_float_result(%x: tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xi8>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x2x2x1xi8>) -> tensor<1x2x2x1xf32>
  %p = tosa.avg_pool2d %dq, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  return %p : tensor<1x1x1x1xf32>
}

// -----

// The quantize reached through TorchToTosa's NHWC -> NCHW transpose, at a
// finer scale: the sum moves in i32 and is rescaled once (by 0.5 / 4 / 0.3),
// not rounded to the input's scale by AVG_POOL2D first.
// CHECK-LABEL: func.func @avg_pool_then_transpose(
// CHECK-NOT:     tosa.avg_pool2d
// CHECK:         %[[SUM:.*]] = tosa.depthwise_conv2d {{.*}} -> tensor<1x1x1x1xi32>
// CHECK:         %[[T:.*]] = tosa.transpose %[[SUM]] {{.*}} -> tensor<1x1x1x1xi32>
// CHECK-NOT:     tosa.intdiv
// CHECK:         tosa.rescale %[[T]], {{.*}} -> tensor<1x1x1x1xi8>
func.func @avg_pool_then_transpose(%x: tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xi8>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x2x2x1xi8>) -> tensor<1x2x2x1xf32>
  %p = tosa.avg_pool2d %dq, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  %t = tosa.transpose %p {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %qp = tosa.custom %t {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.3,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xi8>
  %out = tosa.custom %qp {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.3,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x1x1x1xi8>) -> tensor<1x1x1x1xf32>
  return %out : tensor<1x1x1x1xf32>
}
