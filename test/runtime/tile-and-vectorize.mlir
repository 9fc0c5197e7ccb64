// RUN: tosa-custom-opt %s --tosa-custom-tile-and-vectorize=cpu=avx512 2>/dev/null | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: tosa-custom-opt %s --tosa-custom-tile-and-vectorize=cpu=avx2 2>/dev/null | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: tosa-custom-opt %s --tosa-custom-tile-and-vectorize=cpu=sse 2>/dev/null | FileCheck %s --check-prefixes=CHECK,SSE
// RUN: tosa-custom-opt %s --tosa-custom-tile-and-vectorize=cpu=neon 2>/dev/null | FileCheck %s --check-prefixes=CHECK,NEON
// Tiles are sized for the CPU named (the host's without cpu=): elementwise
// vectors and contraction register tiles (rows x columns) fit its registers.

// An elementwise op is tiled one row at a time, with vector lanes along the
// contiguous dimension: 4 zmm (the whole row of 64), 2 ymm, 2 xmm, 4 q registers.
// CHECK-LABEL: func.func @add(
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// AVX512:            tensor.extract_slice %arg0[%[[I]], 0] [1, 64] [1, 1] : tensor<8x64xf32> to tensor<1x64xf32>
// AVX512:            vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// AVX512:            arith.addf {{.*}} : vector<1x64xf32>
// AVX512:            vector.transfer_write {{.*}} : vector<1x64xf32>, tensor<1x64xf32>
// AVX2:              arith.addf {{.*}} : vector<1x16xf32>
// SSE:               arith.addf {{.*}} : vector<1x8xf32>
// NEON:              arith.addf {{.*}} : vector<1x16xf32>
// CHECK-NOT:     linalg.generic
func.func @add(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tensor.empty() : tensor<8x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<8x64xf32>, tensor<8x64xf32>) outs(%0 : tensor<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %1 : tensor<8x64xf32>
}

// A matmul's register tile: MR rows x NR columns of accumulators, the
// reduction one step at a time: 8 x 32 on AVX-512 (16 zmm + 2 + 1 of 32),
// 6 x 16 on AVX2 (12 ymm + 2 + 1 of 16), 6 x 8 on SSE, 8 x 8 on NEON. 6 divides 96 rows.
// CHECK-LABEL: func.func @matmul(
// AVX512:        vector.contract {{.*}} vector<1x8x1xf32>, vector<1x1x32xf32> into vector<1x8x32xf32>
// AVX2:          vector.contract {{.*}} vector<1x6x1xf32>, vector<1x1x16xf32> into vector<1x6x16xf32>
// SSE:           vector.contract {{.*}} vector<1x6x1xf32>, vector<1x1x8xf32> into vector<1x6x8xf32>
// NEON:          vector.contract {{.*}} vector<1x8x1xf32>, vector<1x1x8xf32> into vector<1x8x8xf32>
// CHECK-NOT:     linalg.batch_matmul
func.func @matmul(%a: tensor<1x96x64xf32>, %b: tensor<1x64x64xf32>) -> tensor<1x96x64xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x96x64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x96x64xf32>) -> tensor<1x96x64xf32>
  %2 = linalg.batch_matmul ins(%a, %b : tensor<1x96x64xf32>, tensor<1x64x64xf32>) outs(%1 : tensor<1x96x64xf32>) -> tensor<1x96x64xf32>
  return %2 : tensor<1x96x64xf32>
}

// Rows that 6 does not divide (64 = 10 x 6 + 4): the AVX2 and SSE tiles keep
// their 6 rows and the remainder loop is peeled, its 4-row tile static too
// (a divisor of the rows would have made every tile 4 rows).
// CHECK-LABEL: func.func @rows_not_a_multiple(
// AVX512:        vector.contract {{.*}} into vector<1x8x32xf32>
// AVX2:          scf.for
// AVX2:            vector.contract {{.*}} into vector<1x6x16xf32>
// AVX2:          vector.contract {{.*}} into vector<1x4x16xf32>
// SSE:           vector.contract {{.*}} into vector<1x6x8xf32>
// SSE:           vector.contract {{.*}} into vector<1x4x8xf32>
func.func @rows_not_a_multiple(%a: tensor<1x64x64xf32>, %b: tensor<1x64x64xf32>) -> tensor<1x64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x64x64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %2 = linalg.batch_matmul ins(%a, %b : tensor<1x64x64xf32>, tensor<1x64x64xf32>) outs(%1 : tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  return %2 : tensor<1x64x64xf32>
}

// Prime sizes: 13 rows, 37 columns. Full tiles, then the peeled remainders
// (AVX-512: rows 8 + 5, columns 32 + 5), every tile vectorized at a static shape.
// CHECK-LABEL: func.func @prime_sizes(
// AVX512-DAG:    vector.contract {{.*}} into vector<1x8x32xf32>
// AVX512-DAG:    vector.contract {{.*}} into vector<1x5x32xf32>
// AVX512-DAG:    vector.contract {{.*}} into vector<1x8x5xf32>
// AVX512-DAG:    vector.contract {{.*}} into vector<1x5x5xf32>
// AVX2-DAG:      vector.contract {{.*}} into vector<1x6x16xf32>
// AVX2-DAG:      vector.contract {{.*}} into vector<1x1x5xf32>
// CHECK-NOT:     linalg.batch_matmul
// CHECK-NOT:     linalg.generic
func.func @prime_sizes(%a: tensor<1x13x7xf32>, %b: tensor<1x7x37xf32>) -> tensor<1x13x37xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x13x37xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x13x37xf32>) -> tensor<1x13x37xf32>
  %2 = linalg.batch_matmul ins(%a, %b : tensor<1x13x7xf32>, tensor<1x7x37xf32>) outs(%1 : tensor<1x13x37xf32>) -> tensor<1x13x37xf32>
  return %2 : tensor<1x13x37xf32>
}
