// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-check-known-crashes="stage=contract" | FileCheck %s
// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-check-known-crashes="stage=contract backend-legal-ops=aten.nonzero,aten.adaptive_max_pool1d,aten.adaptive_max_pool2d,aten._softmax,aten.log_softmax.int,aten.index.Tensor" | FileCheck %s --check-prefix=KEPT

// Valid torch IR torch-mlir's lowering to the backend contract crashes the
// process on (a signal, not a diagnostic) is refused on the op before it runs
// (stage=tosa, the TorchToTosa crashes: check-known-crashes-tosa.mlir).

// torch-mlir's lowering to the backend contract crashes on aten.nonzero of a
// 0-d tensor (found by the OpInfo suite), unless the op is kept: torch-mlir
// then does not decompose it.
// KEPT-LABEL:  func.func @nonzero_0d(
// KEPT:          torch.aten.nonzero
func.func @nonzero_0d(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[?,0],si64> {
  // expected-error @+1 {{torch-mlir's decomposition of aten.nonzero crashes the process (a segmentation fault) on a 0-d input}}
  %0 = torch.aten.nonzero %arg0 : !torch.vtensor<[],f32> -> !torch.vtensor<[?,0],si64>
  return %0 : !torch.vtensor<[?,0],si64>
}

// -----

// Of rank 1 or more, it lowers (or fails with a diagnostic): untouched.
// CHECK-LABEL: func.func @nonzero_1d(
// KEPT-LABEL:  func.func @nonzero_1d(
func.func @nonzero_1d(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,1],si64> {
  %0 = torch.aten.nonzero %arg0 : !torch.vtensor<[4],f32> -> !torch.vtensor<[?,1],si64>
  return %0 : !torch.vtensor<[?,1],si64>
}

// -----

// torch-mlir's decomposition of softmax and log_softmax (either spelling)
// never returns on a 0-d input (found by the OpInfo suite: masked softmax of a
// 0-d sample timed out in stock and auto mode). Refused unless kept.
// KEPT-LABEL:  func.func @softmax_0d(
// KEPT:          torch.aten._softmax
func.func @softmax_0d(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32> {
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  // expected-error @+1 {{torch-mlir's decomposition of _softmax never returns on a 0-d input}}
  %0 = torch.aten._softmax %arg0, %int0, %false : !torch.vtensor<[],f32>, !torch.int, !torch.bool -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// KEPT-LABEL:  func.func @log_softmax_0d(
// KEPT:          torch.aten.log_softmax.int
func.func @log_softmax_0d(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32> {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  // expected-error @+1 {{torch-mlir's decomposition of log_softmax.int never returns on a 0-d input}}
  %0 = torch.aten.log_softmax.int %arg0, %int0, %none : !torch.vtensor<[],f32>, !torch.int, !torch.none -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// torch-mlir's decomposition of index.Tensor segfaults on an empty list of
// indices (OpInfo's resize_ of a 0-d tensor exports to one), at any rank.
// KEPT-LABEL:  func.func @index_no_indices(
// KEPT:          torch.aten.index.Tensor
func.func @index_no_indices(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %0 = torch.prim.ListConstruct  : () -> !torch.list<optional<vtensor>>
  // expected-error @+1 {{torch-mlir's decomposition of index.Tensor crashes the process (a segmentation fault) on an empty list of indices}}
  %1 = torch.aten.index.Tensor %arg0, %0 : !torch.vtensor<[3],f32>, !torch.list<optional<vtensor>> -> !torch.vtensor<[3],f32>
  return %1 : !torch.vtensor<[3],f32>
}

// -----

// So does a 0-d tensor indexed by None only (of rank 1 or more, that decomposes).
func.func @index_none_0d(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32> {
  %none = torch.constant.none
  %0 = torch.prim.ListConstruct %none : (!torch.none) -> !torch.list<optional<vtensor>>
  // expected-error @+1 {{on a 0-d tensor indexed by None only}}
  %1 = torch.aten.index.Tensor %arg0, %0 : !torch.vtensor<[],f32>, !torch.list<optional<vtensor>> -> !torch.vtensor<[],f32>
  return %1 : !torch.vtensor<[],f32>
}

// -----

// CHECK-LABEL: func.func @index_none_1d(
// CHECK:         torch.aten.index.Tensor
func.func @index_none_1d(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %none = torch.constant.none
  %0 = torch.prim.ListConstruct %none : (!torch.none) -> !torch.list<optional<vtensor>>
  %1 = torch.aten.index.Tensor %arg0, %0 : !torch.vtensor<[3],f32>, !torch.list<optional<vtensor>> -> !torch.vtensor<[3],f32>
  return %1 : !torch.vtensor<[3],f32>
}

// -----

// A softmax of rank 1 or more decomposes: untouched.
// CHECK-LABEL: func.func @softmax_1d(
// CHECK:         torch.aten._softmax
func.func @softmax_1d(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %0 = torch.aten._softmax %arg0, %int0, %false : !torch.vtensor<[3],f32>, !torch.int, !torch.bool -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// torch-mlir decomposes adaptive_max_pool2d into a max_pool2d of stride input
// size // output size: 0 for an output larger than the input, on which
// TorchToTosa divides by zero (SIGFPE; found by a third-party suite). Refused
// unless kept, naming the sizes.
// KEPT-LABEL:  func.func @adaptive_max_pool2d_larger_output(
// KEPT:          torch.aten.adaptive_max_pool2d
func.func @adaptive_max_pool2d_larger_output(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,4,16],f32> {
  %int4 = torch.constant.int 4
  %int16 = torch.constant.int 16
  %0 = torch.prim.ListConstruct %int4, %int16 : (!torch.int, !torch.int) -> !torch.list<int>
  // expected-error @+1 {{torch-mlir decomposes adaptive_max_pool2d with an output size larger than its input (8x8 -> 4x16) into a max pool of stride 0}}
  %result0, %result1 = torch.aten.adaptive_max_pool2d %arg0, %0 : !torch.vtensor<[1,3,8,8],f32>, !torch.list<int> -> !torch.vtensor<[1,3,4,16],f32>, !torch.vtensor<[1,3,4,16],si64>
  return %result0 : !torch.vtensor<[1,3,4,16],f32>
}

// -----

// KEPT-LABEL:  func.func @adaptive_max_pool1d_larger_output(
// KEPT:          torch.aten.adaptive_max_pool1d
func.func @adaptive_max_pool1d_larger_output(%arg0: !torch.vtensor<[2,3,10],f32>) -> !torch.vtensor<[2,3,20],si64> {
  %int20 = torch.constant.int 20
  %0 = torch.prim.ListConstruct %int20 : (!torch.int) -> !torch.list<int>
  // expected-error @+1 {{torch-mlir decomposes adaptive_max_pool1d with an output size larger than its input (10 -> 20)}}
  %result0, %result1 = torch.aten.adaptive_max_pool1d %arg0, %0 : !torch.vtensor<[2,3,10],f32>, !torch.list<int> -> !torch.vtensor<[2,3,20],f32>, !torch.vtensor<[2,3,20],si64>
  return %result1 : !torch.vtensor<[2,3,20],si64>
}

// -----

// An output no larger than the input (dividing it or not, of size 1 or the
// input's own) gives strides of 1 or more; a dynamic input size gives a stride
// computed at run time, which TorchToTosa refuses with a diagnostic: untouched.
// CHECK-LABEL: func.func @adaptive_max_pool2d_no_zero_stride(
// CHECK-COUNT-4: torch.aten.adaptive_max_pool2d %arg
func.func @adaptive_max_pool2d_no_zero_stride(%arg0: !torch.vtensor<[1,3,8,8],f32>, %arg1: !torch.vtensor<[1,3,?,?],f32>) -> (!torch.vtensor<[1,3,3,5],f32>, !torch.vtensor<[1,3,1,1],f32>, !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,3,16,16],f32>) {
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %int5 = torch.constant.int 5
  %int8 = torch.constant.int 8
  %int16 = torch.constant.int 16
  %0 = torch.prim.ListConstruct %int3, %int5 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %2 = torch.prim.ListConstruct %int8, %int8 : (!torch.int, !torch.int) -> !torch.list<int>
  %3 = torch.prim.ListConstruct %int16, %int16 : (!torch.int, !torch.int) -> !torch.list<int>
  %r0, %i0 = torch.aten.adaptive_max_pool2d %arg0, %0 : !torch.vtensor<[1,3,8,8],f32>, !torch.list<int> -> !torch.vtensor<[1,3,3,5],f32>, !torch.vtensor<[1,3,3,5],si64>
  %r1, %i1 = torch.aten.adaptive_max_pool2d %arg0, %1 : !torch.vtensor<[1,3,8,8],f32>, !torch.list<int> -> !torch.vtensor<[1,3,1,1],f32>, !torch.vtensor<[1,3,1,1],si64>
  %r2, %i2 = torch.aten.adaptive_max_pool2d %arg0, %2 : !torch.vtensor<[1,3,8,8],f32>, !torch.list<int> -> !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,3,8,8],si64>
  %r3, %i3 = torch.aten.adaptive_max_pool2d %arg1, %3 : !torch.vtensor<[1,3,?,?],f32>, !torch.list<int> -> !torch.vtensor<[1,3,16,16],f32>, !torch.vtensor<[1,3,16,16],si64>
  return %r0, %r1, %r2, %r3 : !torch.vtensor<[1,3,3,5],f32>, !torch.vtensor<[1,3,1,1],f32>, !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,3,16,16],f32>
}
