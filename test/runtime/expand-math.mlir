// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-expand-math | FileCheck %s

// f32 exp, tanh and erf become arithmetic (no libm call per lane).
// CHECK-LABEL: func.func @f32_functions(
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.erf
// CHECK:         math.fma
// CHECK:         return
func.func @f32_functions(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %0 = math.exp %x : vector<16xf32>
  %1 = math.tanh %x : vector<16xf32>
  %2 = math.erf %x : vector<16xf32>
  return %0, %1, %2 : vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// -----

// powf by a constant 2 or 3 becomes products; f64 and other exponents stay.
// CHECK-LABEL: func.func @powers(
// CHECK-SAME:    %[[X:.*]]: f32, %[[Y:.*]]: f64
// CHECK:         %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:         %[[SQ3:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:         %[[CUBE:.*]] = arith.mulf %[[SQ3]], %[[X]] : f32
// CHECK:         math.powf %[[X]], %{{.*}} : f32
// CHECK:         math.exp %[[Y]] : f64
func.func @powers(%x: f32, %y: f64) -> (f32, f32, f32, f64) {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %half = arith.constant 0.5 : f32
  %0 = math.powf %x, %two : f32
  %1 = math.powf %x, %three : f32
  %2 = math.powf %x, %half : f32
  %3 = math.exp %y : f64
  return %0, %1, %2, %3 : f32, f32, f32, f64
}
