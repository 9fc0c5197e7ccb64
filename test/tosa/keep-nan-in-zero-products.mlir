// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-keep-nan-in-zero-products | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-keep-nan-in-zero-products --torch-backend-to-tosa-backend-pipeline | FileCheck %s --check-prefix=TOSA

// alpha * outer(a, b) with alpha = 0 (addr's decomposition): x * (x - x), which
// TOSA canonicalization keeps, where it folds x * 0 to 0 (NaN * 0 is NaN).
// CHECK-LABEL: func.func @times_scalar_zero
// CHECK-SAME: (%[[X:.*]]: !torch.vtensor<[2,3],f32>)
// CHECK: %[[D:.*]] = torch.aten.sub.Tensor %[[X]], %[[X]], %{{.*}}
// CHECK: %[[P:.*]] = torch.aten.mul.Tensor %[[X]], %[[D]]
// CHECK-NOT: torch.aten.mul.Scalar
// CHECK: return %[[P]]
// TOSA-LABEL: func.func @times_scalar_zero
// TOSA: %[[D:.*]] = tosa.sub %[[X:.*]], %[[X]]
// TOSA: tosa.mul %[[X]], %[[D]]
func.func @times_scalar_zero(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %zero = torch.constant.float 0.000000e+00
  %0 = torch.aten.mul.Scalar %x, %zero : !torch.vtensor<[2,3],f32>, !torch.float -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// -0.0: the sign of each zero as eager's, (-x) * (x - x). An int 0 counts too.
// CHECK-LABEL: func.func @times_negative_zero
// CHECK: %[[D:.*]] = torch.aten.sub.Tensor %[[X:.*]], %[[X]]
// CHECK: %[[N:.*]] = torch.aten.neg %[[X]]
// CHECK: torch.aten.mul.Tensor %[[N]], %[[D]]
// CHECK-LABEL: func.func @times_int_zero
// CHECK: torch.aten.sub.Tensor
// CHECK-NOT: torch.aten.mul.Scalar
func.func @times_negative_zero(%x: !torch.vtensor<[4],bf16>) -> !torch.vtensor<[4],bf16> {
  %zero = torch.constant.float -0.000000e+00
  %0 = torch.aten.mul.Scalar %x, %zero : !torch.vtensor<[4],bf16>, !torch.float -> !torch.vtensor<[4],bf16>
  return %0 : !torch.vtensor<[4],bf16>
}
func.func @times_int_zero(%x: !torch.vtensor<[4],f16>) -> !torch.vtensor<[4],f16> {
  %zero = torch.constant.int 0
  %0 = torch.aten.mul.Scalar %x, %zero : !torch.vtensor<[4],f16>, !torch.int -> !torch.vtensor<[4],f16>
  return %0 : !torch.vtensor<[4],f16>
}

// -----

// A zero literal on the left, of a larger shape: x's product broadcast by adding it.
// CHECK-LABEL: func.func @zero_literal_broadcasts
// CHECK: %[[Z:.*]] = torch.vtensor.literal
// CHECK: %[[D:.*]] = torch.aten.sub.Tensor %[[X:.*]], %[[X]]
// CHECK: %[[P:.*]] = torch.aten.mul.Tensor %[[X]], %[[D]] : {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: torch.aten.add.Tensor %[[P]], %[[Z]], %{{.*}} : {{.*}} -> !torch.vtensor<[2,3],f32>
func.func @zero_literal_broadcasts(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> {
  %z = torch.vtensor.literal(dense<0.000000e+00> : tensor<2x3xf32>) : !torch.vtensor<[2,3],f32>
  %0 = torch.aten.mul.Tensor %z, %x : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// x / inf is x * 0 (TorchToTosa multiplies by the reciprocal, 0, and the same
// fold meets it); x / -inf is x * -0. Not when the divisor broadcasts x.
// CHECK-LABEL: func.func @divided_by_infinity
// CHECK: %[[D:.*]] = torch.aten.sub.Tensor %[[X:.*]], %[[X]]
// CHECK: torch.aten.mul.Tensor %[[X]], %[[D]]
// CHECK: %[[D2:.*]] = torch.aten.sub.Tensor %[[X]], %[[X]]
// CHECK: %[[N:.*]] = torch.aten.neg %[[X]]
// CHECK: torch.aten.mul.Tensor %[[N]], %[[D2]]
// CHECK: torch.aten.div.Tensor %[[X]], %{{.*}} : {{.*}} -> !torch.vtensor<[2,3],f32>
// CHECK-NOT: torch.aten.div
// The broadcasting one multiplies by a zero constant of another shape, which is not folded.
// TOSA-LABEL: func.func @divided_by_infinity
// TOSA-COUNT-3: tosa.mul
// TOSA: return
func.func @divided_by_infinity(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[2,3],f32>) {
  %inf = torch.constant.float 0x7FF0000000000000
  %neg = torch.vtensor.literal(dense<0xFF800000> : tensor<f32>) : !torch.vtensor<[],f32>
  %wide = torch.vtensor.literal(dense<0x7F800000> : tensor<2x3xf32>) : !torch.vtensor<[2,3],f32>
  %0 = torch.aten.div.Scalar %x, %inf : !torch.vtensor<[3],f32>, !torch.float -> !torch.vtensor<[3],f32>
  %1 = torch.aten.div.Tensor %x, %neg : !torch.vtensor<[3],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[3],f32>
  %2 = torch.aten.div.Tensor %x, %wide : !torch.vtensor<[3],f32>, !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  return %0, %1, %2 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[2,3],f32>
}

// -----

// Left alone: integers (no NaN), a non-zero factor, a product of two tensors.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: torch.aten.sub.Tensor
// CHECK-COUNT-3: torch.aten.mul
// CHECK-NOT: torch.aten.sub.Tensor
func.func @left_alone(%i: !torch.vtensor<[4],si32>, %x: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],si32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %zero = torch.constant.int 0
  %half = torch.constant.float 5.000000e-01
  %0 = torch.aten.mul.Scalar %i, %zero : !torch.vtensor<[4],si32>, !torch.int -> !torch.vtensor<[4],si32>
  %1 = torch.aten.mul.Scalar %x, %half : !torch.vtensor<[4],f32>, !torch.float -> !torch.vtensor<[4],f32>
  %2 = torch.aten.mul.Tensor %x, %x : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  return %0, %1, %2 : !torch.vtensor<[4],si32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}
