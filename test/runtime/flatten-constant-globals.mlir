// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(tosa-custom-flatten-constant-globals)" | FileCheck %s

// A constant of rank > 1 becomes one flat array of the same elements, in the
// same order; the address the code takes is the same.
// CHECK-LABEL: llvm.mlir.global private constant @w(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf32>)
// CHECK-SAME:    {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<6 x f32>
// CHECK:       llvm.getelementptr %{{.*}}[0, 0, 0, 0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x array<3 x array<1 x array<1 x f32>>>>
llvm.mlir.global private constant @w(dense<[[[[1.0]], [[2.0]], [[3.0]]], [[[4.0]], [[5.0]], [[6.0]]]]> : tensor<2x3x1x1xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<2 x array<3 x array<1 x array<1 x f32>>>>
llvm.func @f() -> !llvm.ptr {
  %0 = llvm.mlir.addressof @w : !llvm.ptr
  %1 = llvm.getelementptr %0[0, 0, 0, 0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x array<3 x array<1 x array<1 x f32>>>>
  llvm.return %1 : !llvm.ptr
}

// -----

// A splat stays a splat; integers too.
// CHECK: llvm.mlir.global private constant @s(dense<7> : tensor<24xi8>) {addr_space = 0 : i32} : !llvm.array<24 x i8>
llvm.mlir.global private constant @s(dense<7> : tensor<2x3x4xi8>) {addr_space = 0 : i32} : !llvm.array<2 x array<3 x array<4 x i8>>>

// -----

// Left as they are: a flat array already, a global that is not constant, a
// dense_resource (whose blob the bindings cannot re-type), rows of 16
// elements (LLVM's cost is per row: long rows cost it little).
// CHECK: llvm.mlir.global private constant @rows(dense<1.000000e+00> : tensor<2x16xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<16 x f32>>
// CHECK: llvm.mlir.global private constant @flat(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>) {addr_space = 0 : i32} : !llvm.array<2 x f32>
// CHECK: llvm.mlir.global private @mutable(dense<0.000000e+00> : tensor<2x2xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<2 x f32>>
// CHECK: llvm.mlir.global private constant @blob(dense_resource<blob> : tensor<2x1xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<1 x f32>>
llvm.mlir.global private constant @rows(dense<1.0> : tensor<2x16xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<16 x f32>>
llvm.mlir.global private constant @flat(dense<[1.0, 2.0]> : tensor<2xf32>) {addr_space = 0 : i32} : !llvm.array<2 x f32>
llvm.mlir.global private @mutable(dense<0.0> : tensor<2x2xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<2 x f32>>
llvm.mlir.global private constant @blob(dense_resource<blob> : tensor<2x1xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<1 x f32>>

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
