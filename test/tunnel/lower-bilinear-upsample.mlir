// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-lower-bilinear-upsample | FileCheck %s

// DeepLabV3's head: 4x4 -> 64x64, half-pixel (align_corners=False). Row o
// reads (o + 0.5) * 4/64 - 0.5 = (2o - 15) / 32: scale 32/2, offset -15; the
// border makes the output 64 rows.
// CHECK-LABEL: func.func @half_pixel(
// CHECK:         %[[X:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[1,21,4,4],f32> -> tensor<1x21x4x4xf32>
// CHECK:         %[[NHWC:.*]] = tosa.transpose %[[X]] {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x21x4x4xf32>) -> tensor<1x4x4x21xf32>
// CHECK-DAG:     %[[SCALE:.*]] = tosa.const_shape {values = dense<[32, 2, 32, 2]> : tensor<4xindex>}
// CHECK-DAG:     %[[OFFSET:.*]] = tosa.const_shape {values = dense<-15> : tensor<2xindex>}
// CHECK-DAG:     %[[BORDER:.*]] = tosa.const_shape {values = dense<15> : tensor<2xindex>}
// CHECK:         %[[R:.*]] = tosa.resize %[[NHWC]], %[[SCALE]], %[[OFFSET]], %[[BORDER]] {mode = BILINEAR} : (tensor<1x4x4x21xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x64x64x21xf32>
// CHECK:         tosa.transpose %[[R]] {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x64x64x21xf32>) -> tensor<1x21x64x64xf32>
// CHECK-NOT:     torch.aten.upsample_bilinear2d
func.func @half_pixel(%arg0: !torch.vtensor<[1,21,4,4],f32>) -> !torch.vtensor<[1,21,64,64],f32> {
  %int64 = torch.constant.int 64
  %false = torch.constant.bool false
  %none = torch.constant.none
  %size = torch.prim.ListConstruct %int64, %int64 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.upsample_bilinear2d.vec %arg0, %size, %false, %none : !torch.vtensor<[1,21,4,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[1,21,64,64],f32>
  return %0 : !torch.vtensor<[1,21,64,64],f32>
}

// -----

// align_corners=True, by scale factors (ignored then): o * (5 - 1) / (10 - 1):
// scale 9/4, no offset, no border; 3 -> 6 columns: 5/2.
// CHECK-LABEL: func.func @align_corners(
// CHECK-DAG:     tosa.const_shape {values = dense<[9, 4, 5, 2]> : tensor<4xindex>}
// CHECK-DAG:     tosa.const_shape {values = dense<0> : tensor<2xindex>}
// CHECK:         tosa.resize {{.*}} -> tensor<2x10x6x3xf32>
func.func @align_corners(%arg0: !torch.vtensor<[2,3,5,3],f32>) -> !torch.vtensor<[2,3,10,6],f32> {
  %float2 = torch.constant.float 2.000000e+00
  %true = torch.constant.bool true
  %none = torch.constant.none
  %scales = torch.prim.ListConstruct %float2, %float2 : (!torch.float, !torch.float) -> !torch.list<float>
  %0 = torch.aten.upsample_bilinear2d.vec %arg0, %none, %true, %scales : !torch.vtensor<[2,3,5,3],f32>, !torch.none, !torch.bool, !torch.list<float> -> !torch.vtensor<[2,3,10,6],f32>
  return %0 : !torch.vtensor<[2,3,10,6],f32>
}

// -----

// Kept for PyTorch's decomposition: a scale factor PyTorch maps by (1 / 1.5)
// where the sizes give 7/5 (5 x 1.5 is not 7), float16, a `?` dim, and a
// 32x downscale (TOSA 1.0: scale_d < 16 scale_n).
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-4: torch.aten.upsample_bilinear2d.vec
// CHECK-NOT:     tosa.resize
func.func @kept(%arg0: !torch.vtensor<[1,1,5,5],f32>, %arg1: !torch.vtensor<[1,1,4,4],f16>, %arg2: !torch.vtensor<[1,1,?,4],f32>, %arg3: !torch.vtensor<[1,1,64,64],f32>) -> (!torch.vtensor<[1,1,7,7],f32>, !torch.vtensor<[1,1,8,8],f16>, !torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,2,2],f32>) {
  %float = torch.constant.float 1.500000e+00
  %false = torch.constant.bool false
  %none = torch.constant.none
  %int8 = torch.constant.int 8
  %int2 = torch.constant.int 2
  %scales = torch.prim.ListConstruct %float, %float : (!torch.float, !torch.float) -> !torch.list<float>
  %size8 = torch.prim.ListConstruct %int8, %int8 : (!torch.int, !torch.int) -> !torch.list<int>
  %size2 = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.upsample_bilinear2d.vec %arg0, %none, %false, %scales : !torch.vtensor<[1,1,5,5],f32>, !torch.none, !torch.bool, !torch.list<float> -> !torch.vtensor<[1,1,7,7],f32>
  %1 = torch.aten.upsample_bilinear2d.vec %arg1, %size8, %false, %none : !torch.vtensor<[1,1,4,4],f16>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[1,1,8,8],f16>
  %2 = torch.aten.upsample_bilinear2d.vec %arg2, %size8, %false, %none : !torch.vtensor<[1,1,?,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[1,1,8,8],f32>
  %3 = torch.aten.upsample_bilinear2d.vec %arg3, %size2, %false, %none : !torch.vtensor<[1,1,64,64],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[1,1,2,2],f32>
  return %0, %1, %2, %3 : !torch.vtensor<[1,1,7,7],f32>, !torch.vtensor<[1,1,8,8],f16>, !torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,2,2],f32>
}
