// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-narrow-f64 | FileCheck %s

// torch-mlir's layer_norm variance: f32 in, f64 inside, f32 out. The region
// computes in f32, the casts go, the constant is an f32 constant.
// CHECK-LABEL: func.func @layer_norm_variance(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8xf32>
// CHECK-NOT:     f64
// CHECK-NOT:     tosa.cast
// CHECK:         %[[N:.*]] = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1xf32>}>
// CHECK:         %[[S:.*]] = tosa.reduce_sum %[[X]] {axis = 1 : i32} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK:         %[[M:.*]] = tosa.mul %[[S]], %[[N]], %{{.*}} : (tensor<2x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x1xf32>
// CHECK:         %[[D:.*]] = tosa.sub %[[X]], %[[M]] : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
// CHECK:         return %[[D]] : tensor<2x8xf32>
func.func @layer_norm_variance(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %n = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1xf64>}> : () -> tensor<1x1xf64>
  %0 = tosa.cast %x : (tensor<2x8xf32>) -> tensor<2x8xf64>
  %1 = tosa.reduce_sum %0 {axis = 1 : i32} : (tensor<2x8xf64>) -> tensor<2x1xf64>
  %2 = tosa.mul %1, %n, %shift : (tensor<2x1xf64>, tensor<1x1xf64>, tensor<1xi8>) -> tensor<2x1xf64>
  %3 = tosa.sub %0, %2 : (tensor<2x8xf64>, tensor<2x1xf64>) -> tensor<2x8xf64>
  %4 = tosa.cast %3 : (tensor<2x8xf64>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// A non-splat constant is converted element by element; a cast from f16 in
// becomes a cast to f32, a cast to an integer out stays a cast from f32.
// CHECK-LABEL: func.func @from_f16_to_int(
// CHECK:         "tosa.const"() <{values = dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>}>
// CHECK:         tosa.cast %{{.*}} : (tensor<2xf16>) -> tensor<2xf32>
// CHECK:         tosa.add %{{.*}} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK:         tosa.cast %{{.*}} : (tensor<2xf32>) -> tensor<2xi32>
// CHECK-NOT:     f64
func.func @from_f16_to_int(%x: tensor<2xf16>) -> tensor<2xi32> {
  %c = "tosa.const"() <{values = dense<[1.5, -2.0]> : tensor<2xf64>}> : () -> tensor<2xf64>
  %0 = tosa.cast %x : (tensor<2xf16>) -> tensor<2xf64>
  %1 = tosa.add %0, %c : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %2 = tosa.cast %1 : (tensor<2xf64>) -> tensor<2xi32>
  return %2 : tensor<2xi32>
}

// -----

// An f64 result of the function is the model's own dtype: nothing changes.
// CHECK-LABEL: func.func @f64_result(
// CHECK:         tosa.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xf64>
// CHECK:         tosa.exp %{{.*}} : (tensor<4xf64>) -> tensor<4xf64>
func.func @f64_result(%x: tensor<4xf32>) -> tensor<4xf64> {
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xf64>
  %1 = tosa.exp %0 : (tensor<4xf64>) -> tensor<4xf64>
  return %1 : tensor<4xf64>
}

// -----

// An f64 argument: the caller's values may not fit f32.
// CHECK-LABEL: func.func @f64_argument(
// CHECK:         tosa.add %{{.*}} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK:         tosa.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
func.func @f64_argument(%x: tensor<4xf64>) -> tensor<4xf32> {
  %0 = tosa.add %x, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = tosa.cast %0 : (tensor<4xf64>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// From an integer: an i64 above 2^24 would round in f32, so f64 stays.
// CHECK-LABEL: func.func @from_integer(
// CHECK:         tosa.cast %{{.*}} : (tensor<4xi64>) -> tensor<4xf64>
// CHECK:         tosa.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
func.func @from_integer(%x: tensor<4xi64>) -> tensor<4xf32> {
  %0 = tosa.cast %x : (tensor<4xi64>) -> tensor<4xf64>
  %1 = tosa.cast %0 : (tensor<4xf64>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// An f64 constant beyond f32's range stays.
// CHECK-LABEL: func.func @out_of_range(
// CHECK:         dense<1.000000e+300> : tensor<1xf64>
func.func @out_of_range(%x: tensor<1xf32>) -> tensor<1xf32> {
  %c = "tosa.const"() <{values = dense<1.0e+300> : tensor<1xf64>}> : () -> tensor<1xf64>
  %0 = tosa.cast %x : (tensor<1xf32>) -> tensor<1xf64>
  %1 = tosa.sub %0, %c : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  %2 = tosa.cast %1 : (tensor<1xf64>) -> tensor<1xf32>
  return %2 : tensor<1xf32>
}

// -----

// A tosa.custom's f64 operand is part of its contract (CONTRACT.md 4.6): it stays.
// CHECK-LABEL: func.func @custom_operand(
// CHECK:         tosa.cast %{{.*}} : (tensor<f32>) -> tensor<f64>
func.func @custom_operand(%x: tensor<f32>) -> tensor<f32> {
  %0 = tosa.cast %x : (tensor<f32>) -> tensor<f64>
  %1 = tosa.custom %0 {domain_name = "torch_mlir", implementation_attrs = "{}", operator_name = "torch.aten.f"} : (tensor<f64>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// A mask's -inf is an f32 value too (scaled_dot_product_attention's decomposition).
// CHECK-LABEL: func.func @minus_infinity(
// CHECK:         "tosa.const"() <{values = dense<0xFF800000> : tensor<1xf32>}>
// CHECK:         tosa.equal %{{.*}} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xi1>
func.func @minus_infinity(%x: tensor<4xf32>) -> tensor<4xi1> {
  %c = "tosa.const"() <{values = dense<0xFFF0000000000000> : tensor<1xf64>}> : () -> tensor<1xf64>
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xf64>
  %1 = tosa.equal %0, %c : (tensor<4xf64>, tensor<1xf64>) -> tensor<4xi1>
  return %1 : tensor<4xi1>
}

// -----

// A Python float result (tosa_custom.scalar = "float") computed from f32: the
// function returns it as f32 (the runtime still hands back a Python float).
// CHECK-LABEL: func.func @python_float_result(
// CHECK-SAME:    -> (tensor<f32> {tosa_custom.output = 0 : i64, tosa_custom.scalar = "float"}, tensor<f32> {tosa_custom.output = 1 : i64, tosa_custom.scalar = "float"})
// CHECK-NOT:     f64
// CHECK:         %[[C:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<f32>}>
// CHECK:         return %[[C]], %{{.*}} : tensor<f32>, tensor<f32>
func.func @python_float_result(%x: tensor<f32>) -> (tensor<f64> {tosa_custom.output = 0 : i64, tosa_custom.scalar = "float"}, tensor<f64> {tosa_custom.output = 1 : i64, tosa_custom.scalar = "float"}) {
  %c = "tosa.const"() <{values = dense<5.000000e-01> : tensor<f64>}> : () -> tensor<f64>
  %0 = tosa.cast %x : (tensor<f32>) -> tensor<f64>
  return %c, %0 : tensor<f64>, tensor<f64>
}

// -----

// An f64 tensor result (not a Python float) is the model's own f64: it stays.
// CHECK-LABEL: func.func @f64_tensor_result(
// CHECK:         "tosa.const"() <{values = dense<5.000000e-01> : tensor<f64>}>
func.func @f64_tensor_result() -> (tensor<f64> {tosa_custom.output = 0 : i64}) {
  %c = "tosa.const"() <{values = dense<5.000000e-01> : tensor<f64>}> : () -> tensor<f64>
  return %c : tensor<f64>
}
