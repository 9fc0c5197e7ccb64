// RUN: tosa-custom-opt %s --tosa-custom-tile-and-vectorize 2>/dev/null | FileCheck %s

// An elementwise op is tiled one row at a time, with vector lanes along the
// contiguous dimension (here the whole row of 64).
// CHECK-LABEL: func.func @add(
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           scf.for
// CHECK:             tensor.extract_slice %arg0[%[[I]], %{{.*}}] [1, 64] [1, 1] : tensor<8x64xf32> to tensor<1x64xf32>
// CHECK:             vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// CHECK:             arith.addf {{.*}} : vector<1x64xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<1x64xf32>, tensor<1x64xf32>
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
