// RUN: tosa-custom-opt %s -split-input-file --pass-pipeline="%{runtime_pipeline}" | FileCheck %s
// The pipeline text is `tosa_custom.runtime.lower.lowering.pipeline()` (lit.cfg.py
// substitutes it), so what Program.pipeline prints replays here.

// One value returned twice (an input mutation in torch.export): it reaches
// LLVM with two output buffers, no crash (tosa-custom-distinct-results).
// CHECK-LABEL: llvm.func @returned_twice(
// CHECK:         llvm.fadd %{{.*}} : vector<4xf32>
// CHECK-LABEL: llvm.func @_mlir_ciface_returned_twice(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
func.func @returned_twice(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %1 = tosa.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A tosa.custom becomes a call of its extern, vectorized code around it.
// CHECK:       llvm.func @_mlir_ciface_tosa_custom_kernel_0(!llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func @custom(
// CHECK:         llvm.call @tosa_custom_kernel_0(
// CHECK:         llvm.fadd %{{.*}} : vector<64xf32>
func.func @custom(%a: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "k"} : (tensor<64xf32>) -> tensor<64xf32>
  %1 = tosa.add %0, %a : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %1 : tensor<64xf32>
}

// -----

// bf16 is computed in f32 and rounded back with integer ops, not with
// __truncsfbf2 (a builtin the JIT finds only on some hosts): no bf16
// arithmetic reaches LLVM.
// CHECK-LABEL: llvm.func @bf16_add(
// CHECK:         llvm.fadd %{{.*}} : vector<{{.*}}xf32>
// CHECK-NOT:     llvm.fadd %{{.*}}bf16
// CHECK-NOT:     llvm.fptrunc
// CHECK-LABEL: llvm.func @_mlir_ciface_bf16_add(
func.func @bf16_add(%a: tensor<16xbf16>, %b: tensor<16xbf16>) -> tensor<16xbf16> {
  %0 = tosa.add %a, %b : (tensor<16xbf16>, tensor<16xbf16>) -> tensor<16xbf16>
  return %0 : tensor<16xbf16>
}
