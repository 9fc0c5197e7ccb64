// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-tile-and-vectorize=cpu=avx512 2>/dev/null | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-tile-and-vectorize=cpu=avx2 2>/dev/null | FileCheck %s --check-prefixes=CHECK,AVX2
// Plans for ops with `?` dims: a `?` loop is tiled at the cap and peeled, so
// the main tiles have static shapes; the remainder, of a size known only at
// run time, is tiled again: by 1 along that loop for a contraction (static
// too), by the CPU's lanes for elementwise ops and reductions, each tile
// vectorized at that width with masks (the last one partial). Every tile is
// vectorized; nothing is left as a linalg op.

// Rows of a matmul `?`: MR x NR register tiles (8 x 32 on AVX-512, 6 x 16 on
// AVX2) over the whole rows; the remainder one row at a time, its fill fused
// and its reduction loop inside the row loop (the accumulators stay in
// registers over K).
// CHECK-LABEL: func.func @matmul_rows(
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %[[NR:.*]] iter_args
// CHECK:           %[[MAIN:.*]] = scf.for %{{.*}} = %c0 to %[[FULL:.*]] step %[[MR:.*]] iter_args
// CHECK:             scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// AVX512:              vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x1x32xf32> into vector<1x8x32xf32>
// AVX2:                vector.contract {{.*}} : vector<1x6x1xf32>, vector<1x1x16xf32> into vector<1x6x16xf32>
// CHECK:           scf.for %{{.*}} = %[[FULL]] to %{{.*}} step %[[MR]] iter_args(%{{.*}} = %[[MAIN]])
// CHECK:             scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// AVX512:              vector.transfer_read {{.*}} : tensor<1x1x32xf32>, vector<1x1x32xf32>
// CHECK:               scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// AVX512:                vector.contract {{.*}} : vector<1x1x1xf32>, vector<1x1x32xf32> into vector<1x1x32xf32>
// AVX2:                  vector.contract {{.*}} : vector<1x1x1xf32>, vector<1x1x16xf32> into vector<1x1x16xf32>
// CHECK-NOT:     linalg.batch_matmul
// CHECK-NOT:     linalg.fill
func.func @matmul_rows(%a: tensor<1x?x64xf32>, %b: tensor<1x64x64xf32>) -> tensor<1x?x64xf32> {
  %cst = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c1 : tensor<1x?x64xf32>
  %0 = tensor.empty(%m) : tensor<1x?x64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  %2 = linalg.batch_matmul ins(%a, %b : tensor<1x?x64xf32>, tensor<1x64x64xf32>) outs(%1 : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  return %2 : tensor<1x?x64xf32>
}

// -----

// An elementwise op over `?` x `?`: one row at a time, 64 (AVX-512) or 16
// (AVX2) lanes along the `?` columns, the remainder 16 (AVX-512) or 8 (AVX2)
// lanes at a time, masked to what is left of the row.
// CHECK-LABEL: func.func @exp_columns(
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK:           scf.for %{{.*}} = %c0 to %[[FULL:.*]] step %[[LANES:.*]] iter_args
// AVX512:            math.exp {{.*}} : vector<1x64xf32>
// AVX2:              math.exp {{.*}} : vector<1x16xf32>
// CHECK:           scf.for %{{.*}} = %[[FULL]] to %{{.*}} step %[[LANES]] iter_args
// AVX512:            scf.for %{{.*}} = %c0 to %{{.*}} step %c16 iter_args
// AVX2:              scf.for %{{.*}} = %c0 to %{{.*}} step %c8 iter_args
// AVX512:              %[[MASK:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<1x16xi1>
// AVX2:                %[[MASK:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<1x8xi1>
// CHECK:               vector.mask %[[MASK]] { vector.transfer_read
// AVX512:              math.exp {{.*}} : vector<1x16xf32>
// AVX2:                math.exp {{.*}} : vector<1x8xf32>
// CHECK:               vector.mask %[[MASK]] { vector.transfer_write
// CHECK-NOT:     linalg.generic
func.func @exp_columns(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %0 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x?xf32>) outs(%0 : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// A reduction along a `?` row: whole vectors (no wider than the elementwise
// ones), then the remainder in masked vectors of the CPU's lanes.
// CHECK-LABEL: func.func @sum_rows(
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK:           scf.for %{{.*}} = %c0 to %[[FULL:.*]] step %[[LANES:.*]] iter_args
// AVX512:            vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x64xf32> to vector<1xf32>
// AVX2:              vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x16xf32> to vector<1xf32>
// CHECK:           scf.for %{{.*}} = %[[FULL]] to %{{.*}} step %[[LANES]] iter_args
// AVX512:            scf.for %{{.*}} = %c0 to %{{.*}} step %c16 iter_args
// AVX2:              scf.for %{{.*}} = %c0 to %{{.*}} step %c8 iter_args
// CHECK:               %[[MASK:.*]] = vector.create_mask
// CHECK:               vector.mask %[[MASK]] { vector.transfer_read
// AVX512:              vector.mask %[[MASK]] { vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x16xf32> to vector<1xf32> }
// AVX2:                vector.mask %[[MASK]] { vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x8xf32> to vector<1xf32> }
// CHECK-NOT:     linalg.generic
func.func @sum_rows(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %0 = tensor.empty(%m) : tensor<?xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<?xf32>) -> tensor<?xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<?x?xf32>) outs(%1 : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %2 : tensor<?xf32>
}
