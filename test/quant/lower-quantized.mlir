// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-quantized-boundary --tosa-custom-lower-quantized --verify-diagnostics | FileCheck %s

// A quantized linear as TorchToTosa leaves it (PT2E's ops kept as tosa.custom,
// the matmul and bias add in float): int8 operands with zero points into i32,
// the bias at the accumulator's scale (0.5 x 0.25), one RESCALE per output
// column to the quantize's parameters, the boundary in integers.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME:    %[[X:.*]]: tensor<1x1x4xi8> {tosa_custom.quantization = {dtype = "int8", quant_max = 127 : i64, quant_min = -128 : i64, scale = 5.000000e-01 : f64, zero_point = 3 : i64}})
// CHECK-SAME:    -> (tensor<1x1x2xi8> {tosa_custom.quantization = {dtype = "int8", quant_max = 127 : i64, quant_min = -128 : i64, scale = 1.250000e-01 : f64, zero_point = -1 : i64}})
// CHECK-NOT:     f32
// CHECK:         %[[MM:.*]] = tosa.matmul %[[X]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x4xi8>, tensor<1x4x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x2xi32>
// CHECK:         %[[B:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}8, -4]]]> : tensor<1x1x2xi32>}>
// CHECK:         %[[S:.*]] = tosa.add %[[MM]], %[[B]]
// CHECK:         %[[R:.*]] = tosa.rescale %[[S]], {{.*}}per_channel = true{{.*}} : (tensor<1x1x2xi32>, tensor<2xi32>, tensor<2xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x2xi8>
// CHECK:         return %[[R]]
func.func @linear(%x: tensor<1x1x4xf32>) -> tensor<1x1x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[1, -2], [3, 4], [-5, 6], [7, 8]]]> : tensor<1x4x2xi8>}> : () -> tensor<1x4x2xi8>
  %ws = "tosa.const"() <{values = dense<[0.25, 0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %wz = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b = "tosa.const"() <{values = dense<[[[1.0, -1.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x1x4xf32>) -> tensor<1x1x4xi8>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.5,\22zero_point\22:3},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x1x4xi8>) -> tensor<1x1x4xf32>
  %dw = tosa.custom %w, %ws, %wz {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22axis\22:2,\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-127,\22scales\22:{\22operand\22:1},\22zero_points\22:{\22operand\22:2}},\22operand_dtypes\22:{\222\22:\22int64\22},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_channel"} : (tensor<1x4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x4x2xf32>
  %mm = tosa.matmul %dq, %dw, %zp, %zp : (tensor<1x1x4xf32>, tensor<1x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2xf32>
  %y = tosa.add %mm, %b : (tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %qy = tosa.custom %y {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.125,\22zero_point\22:-1},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x1x2xf32>) -> tensor<1x1x2xi8>
  %out = tosa.custom %qy {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.125,\22zero_point\22:-1},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x1x2xi8>) -> tensor<1x1x2xf32>
  return %out : tensor<1x1x2xf32>
}

// -----

// An elementwise function between int8 values: a TABLE computed by PyTorch
// (sigmoid of each dequantized input, quantized to the output's parameters);
// a clamp (relu) on int8 is a CLAMP at the integer bounds.
// CHECK-LABEL: func.func @table_and_relu(
// CHECK-NOT:     f32
// CHECK:         %[[C:.*]] = tosa.clamp %{{.*}} {max_val = 127 : i8, min_val = 0 : i8
// CHECK:         %[[T:.*]] = "tosa.const"() <{values = dense<{{.*}}> : tensor<256xi8>}>
// CHECK:         tosa.table %[[C]], %[[T]] : (tensor<4xi8>, tensor<256xi8>) -> tensor<4xi8>
func.func @table_and_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.0625,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<4xf32>) -> tensor<4xi8>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.0625,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<4xi8>) -> tensor<4xf32>
  %r = tosa.clamp %dq {max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %s = tosa.sigmoid %r : (tensor<4xf32>) -> tensor<4xf32>
  %qs = tosa.custom %s {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.00390625,\22zero_point\22:-128},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<4xf32>) -> tensor<4xi8>
  %out = tosa.custom %qs {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.00390625,\22zero_point\22:-128},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<4xi8>) -> tensor<4xf32>
  return %out : tensor<4xf32>
}

// -----

// An op on a quantized value without an integer form is refused, named.
func.func @refused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.0625,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<4xf32>) -> tensor<4xi8>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-128,\22scale\22:0.0625,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<4xi8>) -> tensor<4xf32>
  // expected-error @+1 {{tosa.floor on a quantized value has no integer form here}}
  %f = tosa.floor %dq : (tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

// int16 activations with int8 weights (EXT-INT16): the int8 weights CAST to
// i16 for an i16 x i16 MATMUL into i48, narrowed to i32 at once by a RESCALE
// from i48 by 1 (i16 multiplier 2^14, shift 14, scale32 = false as the
// specification requires of an i48 input), then the int8 rules: the bias in
// i32 at 0.5 x (0.25, 0.5), one scale32 RESCALE per column to the int16 output.
// CHECK-LABEL: func.func @linear_int16(
// CHECK-SAME:    %[[X:.*]]: tensor<1x1x4xi16> {tosa_custom.quantization = {dtype = "int16", quant_max = 32767 : i64, quant_min = -32768 : i64, scale = 5.000000e-01 : f64, zero_point = 0 : i64}})
// CHECK-SAME:    -> (tensor<1x1x2xi16> {tosa_custom.quantization = {dtype = "int16"
// CHECK-NOT:     f32
// CHECK:         %[[W:.*]] = tosa.cast %{{.*}} : (tensor<1x4x2xi8>) -> tensor<1x4x2xi16>
// CHECK:         %[[MM:.*]] = tosa.matmul %[[X]], %[[W]], %{{.*}}, %{{.*}} : (tensor<1x1x4xi16>, tensor<1x4x2xi16>, tensor<1xi16>, tensor<1xi16>) -> tensor<1x1x2xi48>
// CHECK:         %[[M:.*]] = "tosa.const"() <{values = dense<16384> : tensor<1xi16>}>
// CHECK:         %[[SH:.*]] = "tosa.const"() <{values = dense<14> : tensor<1xi8>}>
// CHECK:         %[[N:.*]] = tosa.rescale %[[MM]], %[[M]], %[[SH]], {{.*}}scale32 = false{{.*}} : (tensor<1x1x2xi48>, tensor<1xi16>, tensor<1xi8>, tensor<1xi48>, tensor<1xi32>) -> tensor<1x1x2xi32>
// CHECK:         %[[B:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}8, -4]]]> : tensor<1x1x2xi32>}>
// CHECK:         %[[S:.*]] = tosa.add %[[N]], %[[B]]
// CHECK:         %[[R:.*]] = tosa.rescale %[[S]], {{.*}}scale32 = true{{.*}} : (tensor<1x1x2xi32>, tensor<2xi32>, tensor<2xi8>, tensor<1xi32>, tensor<1xi16>) -> tensor<1x1x2xi16>
// CHECK:         return %[[R]]
func.func @linear_int16(%x: tensor<1x1x4xf32>) -> tensor<1x1x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[1, -2], [3, 4], [-5, 6], [7, 8]]]> : tensor<1x4x2xi8>}> : () -> tensor<1x4x2xi8>
  %ws = "tosa.const"() <{values = dense<[0.25, 0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %wz = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b = "tosa.const"() <{values = dense<[[[1.0, -1.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.5,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x1x4xf32>) -> tensor<1x1x4xi16>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.5,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x1x4xi16>) -> tensor<1x1x4xf32>
  %dw = tosa.custom %w, %ws, %wz {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22axis\22:2,\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-127,\22scales\22:{\22operand\22:1},\22zero_points\22:{\22operand\22:2}},\22operand_dtypes\22:{\222\22:\22int64\22},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_channel"} : (tensor<1x4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x4x2xf32>
  %mm = tosa.matmul %dq, %dw, %zp, %zp : (tensor<1x1x4xf32>, tensor<1x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2xf32>
  %y = tosa.add %mm, %b : (tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %qy = tosa.custom %y {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.125,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x1x2xf32>) -> tensor<1x1x2xi16>
  %out = tosa.custom %qy {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.125,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x1x2xi16>) -> tensor<1x1x2xf32>
  return %out : tensor<1x1x2xf32>
}

// -----

// An int16 convolution: i16 x i8 into i48 with a zero bias (IREE misreads
// negative i48 constants), narrowed to i32, the bias (2, -1) x 4 added there
// per output channel (scales 0.5 x (0.5, 0.25)).
// CHECK-LABEL: func.func @conv_int16(
// CHECK-NOT:     f32
// CHECK:         %[[Z:.*]] = "tosa.const"() <{values = dense<0> : tensor<2xi48>}>
// CHECK:         %[[C:.*]] = tosa.conv2d %{{.*}}, %{{.*}}, %[[Z]], %{{.*}}, %{{.*}} {acc_type = i48{{.*}} : (tensor<1x2x2x2xi16>, tensor<2x1x1x2xi8>, tensor<2xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x2x2x2xi48>
// CHECK:         %[[N:.*]] = tosa.rescale %[[C]], {{.*}}scale32 = false{{.*}} -> tensor<1x2x2x2xi32>
// CHECK:         %[[B:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}4, -4]]]]> : tensor<1x1x1x2xi32>}>
// CHECK:         tosa.add %[[N]], %[[B]]
func.func @conv_int16(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1, -2]]], [[[3, 4]]]]> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
  %ws = "tosa.const"() <{values = dense<[0.5, 0.25]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %wz = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b = "tosa.const"() <{values = dense<[1.0, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.5,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xi16>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.5,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x2x2x2xi16>) -> tensor<1x2x2x2xf32>
  %dw = tosa.custom %w, %ws, %wz {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22axis\22:0,\22dtype\22:{\22dtype\22:\22int8\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:127,\22quant_min\22:-127,\22scales\22:{\22operand\22:1},\22zero_points\22:{\22operand\22:2}},\22operand_dtypes\22:{\222\22:\22int64\22},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_channel"} : (tensor<2x1x1x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<2x1x1x2xf32>
  %c = tosa.conv2d %dq, %dw, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %qy = tosa.custom %c {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.125,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xi16>
  %out = tosa.custom %qy {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.125,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<1x2x2x2xi16>) -> tensor<1x2x2x2xf32>
  return %out : tensor<1x2x2x2xf32>
}

// -----

// An elementwise function of an int16 value: a TABLE of 513 i16 entries,
// interpolated into i32 at 1/128 of the output's scale, RESCALEd by 1/128
// (checked at every int16 input to be within 1 LSB of PT2E).
// CHECK-LABEL: func.func @int16_table(
// CHECK-NOT:     f32
// CHECK:         %[[T:.*]] = "tosa.const"() <{values = dense<{{.*}}> : tensor<513xi16>}>
// CHECK:         %[[Y:.*]] = tosa.table %{{.*}}, %[[T]] : (tensor<4xi16>, tensor<513xi16>) -> tensor<4xi32>
// CHECK:         tosa.rescale %[[Y]], {{.*}} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi16>) -> tensor<4xi16>
func.func @int16_table(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.000244140625,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<4xf32>) -> tensor<4xi16>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.000244140625,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<4xi16>) -> tensor<4xf32>
  %s = tosa.sigmoid %dq : (tensor<4xf32>) -> tensor<4xf32>
  %qs = tosa.custom %s {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.000030517578125,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<4xf32>) -> tensor<4xi16>
  %out = tosa.custom %qs {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.000030517578125,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<4xi16>) -> tensor<4xf32>
  return %out : tensor<4xf32>
}

// -----

// One whose interpolation is more than 1 LSB off PT2E (an input scale so
// coarse that sigmoid bends inside each 128-input segment) is refused,
// saying by how much and naming the fixes.
func.func @int16_table_refused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = tosa.custom %x {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.0625,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<4xf32>) -> tensor<4xi16>
  %dq = tosa.custom %q {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.0625,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<4xi16>) -> tensor<4xf32>
  // expected-error @+1 {{aten.sigmoid of an int16 value: its interpolated int16 TABLE is up to}}
  %s = tosa.sigmoid %dq : (tensor<4xf32>) -> tensor<4xf32>
  %qs = tosa.custom %s {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.0001,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.quantize_per_tensor"} : (tensor<4xf32>) -> tensor<4xi16>
  %out = tosa.custom %qs {domain_name = "torch_mlir", implementation_attrs = "{\22args\22:{\22dtype\22:{\22dtype\22:\22int16\22},\22input\22:{\22operand\22:0},\22out_dtype\22:null,\22quant_max\22:32767,\22quant_min\22:-32768,\22scale\22:0.0001,\22zero_point\22:0},\22version\22:4}", operator_name = "torch.quantized_decomposed.dequantize_per_tensor"} : (tensor<4xi16>) -> tensor<4xf32>
  return %out : tensor<4xf32>
}
