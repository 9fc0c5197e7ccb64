// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-round-emulated-floats | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}, math-extend-to-supported-types{extra-types=f16 target-type=f32}), tosa-custom-round-emulated-floats, func.func(arith-expand{include-bf16=true}))" | FileCheck %s --check-prefix=ROUNDED

// The casts lose their contract flag.
// CHECK-LABEL: func.func @flagged(
// CHECK:         arith.extf %arg0 : vector<4xbf16> to vector<4xf32>
// CHECK:         arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK-NOT:     fastmath
func.func @flagged(%a: vector<4xbf16>) -> vector<4xbf16> {
  %0 = arith.extf %a fastmath<contract> : vector<4xbf16> to vector<4xf32>
  %1 = arith.addf %0, %0 : vector<4xf32>
  %2 = arith.truncf %1 fastmath<contract> : vector<4xf32> to vector<4xbf16>
  return %2 : vector<4xbf16>
}

// -----

// In the runtime's bf16 emulation, the product is rounded to bfloat16
// (integer ops) before the sum takes it: the sum's operand is not the float32
// product, as it was when extf(truncf(x)) folded to x.
// ROUNDED-LABEL: func.func @chain(
// ROUNDED:         arith.mulf
// ROUNDED:         %[[R:.*]] = arith.bitcast %{{.*}} : vector<4xi16> to vector<4xbf16>
// ROUNDED:         %[[I:.*]] = arith.bitcast %[[R]] : vector<4xbf16> to vector<4xi16>
// ROUNDED:         %[[E:.*]] = arith.extui %[[I]]
// ROUNDED:         %[[S:.*]] = arith.shli %[[E]]
// ROUNDED:         %[[W:.*]] = arith.bitcast %[[S]] : vector<4xi32> to vector<4xf32>
// ROUNDED:         arith.addf %[[W]],
func.func @chain(%a: vector<4xbf16>) -> vector<4xbf16> {
  %0 = arith.mulf %a, %a : vector<4xbf16>
  %1 = arith.addf %0, %a : vector<4xbf16>
  return %1 : vector<4xbf16>
}

// -----

// Likewise between two bfloat16 math ops: sin takes exp's rounded result.
// ROUNDED-LABEL: func.func @math_chain(
// ROUNDED:         math.exp
// ROUNDED:         %[[R:.*]] = arith.bitcast %{{.*}} : vector<4xi16> to vector<4xbf16>
// ROUNDED:         %[[I:.*]] = arith.bitcast %[[R]] : vector<4xbf16> to vector<4xi16>
// ROUNDED:         %[[E:.*]] = arith.extui %[[I]]
// ROUNDED:         %[[S:.*]] = arith.shli %[[E]]
// ROUNDED:         %[[W:.*]] = arith.bitcast %[[S]] : vector<4xi32> to vector<4xf32>
// ROUNDED:         math.sin %[[W]]
func.func @math_chain(%a: vector<4xbf16>) -> vector<4xbf16> {
  %0 = math.exp %a : vector<4xbf16>
  %1 = math.sin %0 : vector<4xbf16>
  return %1 : vector<4xbf16>
}
