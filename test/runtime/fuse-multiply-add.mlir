// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-fuse-multiply-add | FileCheck %s

// addf(acc, mulf(a, b)) on vectors becomes one FMA.
// CHECK-LABEL: func.func @mul_add(
// CHECK-SAME:    %[[A:.*]]: vector<8xf32>, %[[B:.*]]: vector<8xf32>, %[[C:.*]]: vector<8xf32>
// CHECK-NEXT:    %[[F:.*]] = math.fma %[[A]], %[[B]], %[[C]] : vector<8xf32>
// CHECK-NEXT:    return %[[F]]
func.func @mul_add(%a: vector<8xf32>, %b: vector<8xf32>, %c: vector<8xf32>) -> vector<8xf32> {
  %m = arith.mulf %a, %b : vector<8xf32>
  %s = arith.addf %c, %m : vector<8xf32>
  return %s : vector<8xf32>
}

// -----

// Scalars, and a product used twice, are left alone.
// CHECK-LABEL: func.func @not_fused(
// CHECK-NOT:     math.fma
// CHECK:         arith.mulf
// CHECK:         arith.addf
func.func @not_fused(%a: f32, %b: f32, %v: vector<4xf32>) -> (f32, vector<4xf32>, vector<4xf32>) {
  %m = arith.mulf %a, %b : f32
  %s = arith.addf %m, %a : f32
  %mv = arith.mulf %v, %v : vector<4xf32>
  %sv = arith.addf %mv, %v : vector<4xf32>
  return %s, %sv, %mv : f32, vector<4xf32>, vector<4xf32>
}

// -----

// Half-type vectors are left alone: eager rounds the product to the half
// type before the sum.
// CHECK-LABEL: func.func @half_types(
// CHECK-NOT:     math.fma
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:         arith.mulf
// CHECK:         arith.addf
func.func @half_types(%a: vector<8xf16>, %b: vector<8xbf16>) -> (vector<8xf16>, vector<8xbf16>) {
  %m = arith.mulf %a, %a : vector<8xf16>
  %s = arith.addf %a, %m : vector<8xf16>
  %mb = arith.mulf %b, %b : vector<8xbf16>
  %sb = arith.addf %b, %mb : vector<8xbf16>
  return %s, %sb : vector<8xf16>, vector<8xbf16>
}
