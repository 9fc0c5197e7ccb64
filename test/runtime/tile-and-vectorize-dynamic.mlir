// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-tile-and-vectorize=cpu=avx512 2>/dev/null | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-tile-and-vectorize=cpu=avx2 2>/dev/null | FileCheck %s --check-prefixes=CHECK,AVX2
// Plans for ops with `?` dims: a `?` loop is tiled at the cap and peeled, so
// the main tiles have static shapes; the remainder, of a size known only at
// run time, is tiled again: for a contraction, as full tiles (remainders.py:
// the last full tile moved back to the last row; below one tile, tiles of
// halving sizes), for elementwise ops and reductions by the CPU's lanes, each
// tile vectorized at that width with masks (the last one partial). Every
// tile is vectorized; nothing is left as a linalg op.

// Rows of a matmul `?`: MR x NR register tiles (8 x 32 on AVX-512, 6 x 16 on
// AVX2). With at least MR rows and a remainder not a power of two, the tile
// loop covers them all, its last tile moved back to end at the last row
// (affine.min), and the remainder loop runs none; else the remainder runs as a 4-, a 2- and a 1-row tile (those
// its size needs). Each tile's fill is fused and its reduction loop inside it
// (the accumulators stay in registers over K).
// CHECK-LABEL: func.func @matmul_rows(
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %[[NR:.*]] iter_args
// CHECK:           %[[ENOUGH:.*]] = arith.cmpi sge, %[[M:.*]], %[[MR:c[0-9]+]] : index
// CHECK:           %[[WHOLE:.*]] = arith.andi %[[ENOUGH]], %{{.*}} : i1
// CHECK:           %[[BOUND:.*]] = arith.select %[[WHOLE]], %[[M]], %{{.*}} : index
// CHECK:           %[[MAIN:.*]] = scf.for %[[I:.*]] = %c0 to %[[BOUND]] step %[[MR]] iter_args
// CHECK:             %[[AT:.*]] = affine.min #{{.*}}(%[[I]])[%[[M]]]
// AVX512:            tensor.extract_slice %{{.*}}[0, %[[AT]], 0] [1, 8, 64]
// AVX2:              tensor.extract_slice %{{.*}}[0, %[[AT]], 0] [1, 6, 64]
// CHECK:             scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// AVX512:              vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x1x32xf32> into vector<1x8x32xf32>
// AVX2:                vector.contract {{.*}} : vector<1x6x1xf32>, vector<1x1x16xf32> into vector<1x6x16xf32>
// CHECK:           scf.for %{{.*}} = %[[BOUND]] to %[[M]] step %[[MR]] iter_args(%{{.*}} = %[[MAIN]])
// CHECK:             scf.for %{{.*}} = %c0 to %{{.*}} step %c4 iter_args
// CHECK:               scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// AVX512:                vector.contract {{.*}} : vector<1x4x1xf32>, vector<1x1x32xf32> into vector<1x4x32xf32>
// AVX2:                  vector.contract {{.*}} : vector<1x4x1xf32>, vector<1x1x16xf32> into vector<1x4x16xf32>
// CHECK:             scf.for %{{.*}} step %c4 iter_args
// CHECK:               scf.for %{{.*}} = %c0 to %{{.*}} step %c2 iter_args
// CHECK:                 scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// AVX512:                  vector.contract {{.*}} : vector<1x2x1xf32>, vector<1x1x32xf32> into vector<1x2x32xf32>
// AVX2:                    vector.contract {{.*}} : vector<1x2x1xf32>, vector<1x1x16xf32> into vector<1x2x16xf32>
// CHECK:               scf.for %{{.*}} step %c2 iter_args
// CHECK:                 scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK:                   scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// AVX512:                    vector.contract {{.*}} : vector<1x1x1xf32>, vector<1x1x32xf32> into vector<1x1x32xf32>
// AVX2:                      vector.contract {{.*}} : vector<1x1x1xf32>, vector<1x1x16xf32> into vector<1x1x16xf32>
// CHECK-NOT:     vector.mask
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

// A reduction along a `?` row: per-lane partial sums over the row (a
// vector of the elementwise width, no cross-lane step inside the loops), its
// remainder added in one masked step, then one reduction across lanes per row.
// CHECK-LABEL: func.func @sum_rows(
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// AVX512:          %[[ZERO:.*]] = vector.transfer_write %{{.*}} : vector<1x64xf32>, tensor<1x64xf32>
// AVX2:            %[[ZERO:.*]] = vector.transfer_write %{{.*}} : vector<1x16xf32>, tensor<1x16xf32>
// CHECK:           %[[MAIN:.*]] = scf.for %{{.*}} = %c0 to %[[FULL:.*]] step %[[LANES:.*]] iter_args(%{{.*}} = %[[ZERO]])
// CHECK-NOT:         vector.multi_reduction
// AVX512:            arith.addf {{.*}} : vector<1x64xf32>
// AVX2:              arith.addf {{.*}} : vector<1x16xf32>
// CHECK:           %[[REST:.*]] = scf.for %{{.*}} = %[[FULL]] to %{{.*}} step %[[LANES]] iter_args(%{{.*}} = %[[MAIN]])
// AVX512:            %[[MASK:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<1x64xi1>
// AVX2:              %[[MASK:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<1x16xi1>
// CHECK:             vector.mask %[[MASK]] { vector.transfer_read
// CHECK-NOT:         vector.multi_reduction
// CHECK:             vector.mask %[[MASK]] { vector.transfer_write
// CHECK:           vector.transfer_read %[[REST]]
// AVX512:          vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x64xf32> to vector<1xf32>
// AVX2:            vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x16xf32> to vector<1xf32>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.reduce
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

// -----

// The same matmul accumulating into C (not a fill): a tile moved back would
// add its overlapping rows twice, so the tile loop keeps to whole tiles and
// the remainder runs as halving tiles.
// CHECK-LABEL: func.func @matmul_rows_accumulate(
// CHECK-NOT:     arith.select
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %[[NR:.*]] iter_args
// CHECK:           scf.for %{{.*}} = %c0 to %{{.*}} step %[[MR:c[0-9]+]] iter_args
// AVX512:            vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x1x32xf32> into vector<1x8x32xf32>
// AVX2:              vector.contract {{.*}} : vector<1x6x1xf32>, vector<1x1x16xf32> into vector<1x6x16xf32>
// CHECK:           scf.for %{{.*}} step %[[MR]] iter_args
// CHECK:             scf.for %{{.*}} = %c0 to %{{.*}} step %c4 iter_args
// CHECK-NOT:     linalg.batch_matmul
func.func @matmul_rows_accumulate(%a: tensor<1x?x64xf32>, %b: tensor<1x64x64xf32>, %c: tensor<1x?x64xf32>) -> tensor<1x?x64xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<1x?x64xf32>, tensor<1x64x64xf32>) outs(%c : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  return %0 : tensor<1x?x64xf32>
}

// -----

// A matmul whose A is computed by a linalg op: its fill is not fused (that
// would fuse the exp too, recomputed per column tile), so the tile moved back
// would start from rows the tile before it wrote; each full tile is filled
// again (a zero write) before its reduction loop.
// CHECK-LABEL: func.func @matmul_rows_refill(
// CHECK:         linalg.fill
// CHECK:         arith.cmpi sge
// CHECK:         scf.for %[[I:.*]] = %c0 to %{{.*}} step %[[MR:c[0-9]+]] iter_args
// CHECK:           affine.min #{{.*}}(%[[I]])
// AVX512:          %[[ZERO:.*]] = vector.transfer_write %{{.*}} : vector<1x8x32xf32>, tensor<1x8x32xf32>
// AVX2:            %[[ZERO:.*]] = vector.transfer_write %{{.*}} : vector<1x6x16xf32>, tensor<1x6x16xf32>
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %[[ZERO]])
func.func @matmul_rows_refill(%a: tensor<1x?x64xf32>, %b: tensor<1x64x64xf32>) -> tensor<1x?x64xf32> {
  %cst = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c1 : tensor<1x?x64xf32>
  %e0 = tensor.empty(%m) : tensor<1x?x64xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<1x?x64xf32>) outs(%e0 : tensor<1x?x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = math.exp %x : f32
    linalg.yield %t : f32
  } -> tensor<1x?x64xf32>
  %0 = tensor.empty(%m) : tensor<1x?x64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  %2 = linalg.batch_matmul ins(%e, %b : tensor<1x?x64xf32>, tensor<1x64x64xf32>) outs(%1 : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  return %2 : tensor<1x?x64xf32>
}
