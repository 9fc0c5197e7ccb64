// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-check-known-crashes="stage=tosa" | FileCheck %s

// Valid torch IR TorchToTosa crashes the process on (a signal, not a
// diagnostic) is refused on the op before it runs.

// TorchToTosa crashes on upsample_nearest2d of a 0-d tensor (found by the
// pass fuzzer). (The module fails the pass: nothing is printed.)
func.func @upsample_0d(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[1,1,4,4],f32> {
  %int4 = torch.constant.int 4
  %none = torch.constant.none
  %0 = torch.prim.ListConstruct %int4, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.derefine %0 : !torch.list<int> to !torch.optional<list<int>>
  // expected-error @+1 {{TorchToTosa's lowering of upsample_nearest2d crashes the process (a segmentation fault) on a 0-d input}}
  %2 = torch.aten.upsample_nearest2d.vec %arg0, %1, %none : !torch.vtensor<[],f32>, !torch.optional<list<int>>, !torch.none -> !torch.vtensor<[1,1,4,4],f32>
  return %2 : !torch.vtensor<[1,1,4,4],f32>
}

// -----

// A 4-d one lowers: untouched.
// CHECK-LABEL: func.func @upsample_4d(
// CHECK:         torch.aten.upsample_nearest2d.vec %arg0
func.func @upsample_4d(%arg0: !torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[1,1,4,4],f32> {
  %int4 = torch.constant.int 4
  %none = torch.constant.none
  %0 = torch.prim.ListConstruct %int4, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.derefine %0 : !torch.list<int> to !torch.optional<list<int>>
  %2 = torch.aten.upsample_nearest2d.vec %arg0, %1, %none : !torch.vtensor<[1,1,2,2],f32>, !torch.optional<list<int>>, !torch.none -> !torch.vtensor<[1,1,4,4],f32>
  return %2 : !torch.vtensor<[1,1,4,4],f32>
}

// -----

// A 0-d nonzero crashes only torch-mlir's decomposition, not TorchToTosa.
// CHECK-LABEL: func.func @nonzero_0d(
// CHECK:         torch.aten.nonzero
func.func @nonzero_0d(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[?,0],si64> {
  %0 = torch.aten.nonzero %arg0 : !torch.vtensor<[],f32> -> !torch.vtensor<[?,0],si64>
  return %0 : !torch.vtensor<[?,0],si64>
}

// -----

// TorchToTosa's pooling lowerings divide the input size by the stride: a 0
// (torch-mlir's decomposition of adaptive_max_pool2d to 16x16 from 8x8 makes
// one) is a division by zero, SIGFPE (found by a third-party suite).
func.func @max_pool2d_zero_stride(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,16,16],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %kernel = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %dilation = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  // expected-error @+1 {{TorchToTosa's lowering of max_pool2d divides the input size by the stride and crashes the process (SIGFPE, a division by zero) on stride [0, 0]}}
  %0 = torch.aten.max_pool2d %arg0, %kernel, %stride, %padding, %dilation, %false : !torch.vtensor<[1,3,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,3,16,16],f32>
  return %0 : !torch.vtensor<[1,3,16,16],f32>
}

// -----

// One zero is enough, whatever the input's sizes (they need not be known).
func.func @max_pool2d_one_zero_stride_dynamic(%arg0: !torch.vtensor<[?,3,?,8],f32>) -> !torch.vtensor<[?,3,?,16],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %kernel = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %dilation = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  // expected-error @+1 {{on stride [1, 0]}}
  %0 = torch.aten.max_pool2d %arg0, %kernel, %stride, %padding, %dilation, %false : !torch.vtensor<[?,3,?,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[?,3,?,16],f32>
  return %0 : !torch.vtensor<[?,3,?,16],f32>
}

// -----

// The 1-d max pool and the average pools share the division.
func.func @max_pool1d_zero_stride(%arg0: !torch.vtensor<[2,3,10],f32>) -> !torch.vtensor<[2,3,20],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %kernel = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %dilation = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  // expected-error @+1 {{TorchToTosa's lowering of max_pool1d divides the input size by the stride}}
  %0 = torch.aten.max_pool1d %arg0, %kernel, %stride, %padding, %dilation, %false : !torch.vtensor<[2,3,10],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[2,3,20],f32>
  return %0 : !torch.vtensor<[2,3,20],f32>
}

// -----

func.func @avg_pool2d_zero_stride(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,16,16],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %none = torch.constant.none
  %kernel = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  // expected-error @+1 {{TorchToTosa's lowering of avg_pool2d divides the input size by the stride}}
  %0 = torch.aten.avg_pool2d %arg0, %kernel, %stride, %padding, %false, %true, %none : !torch.vtensor<[1,3,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[1,3,16,16],f32>
  return %0 : !torch.vtensor<[1,3,16,16],f32>
}

// -----

// Strides above 0 lower; a stride list of another length than the pool's
// rank is refused by TorchToTosa itself before it divides: both untouched.
// CHECK-LABEL: func.func @max_pool2d_positive_or_short_stride(
// CHECK-COUNT-2: torch.aten.max_pool2d %arg0
func.func @max_pool2d_positive_or_short_stride(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> (!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,3,16,16],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %kernel = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %ones = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %short = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %dilation = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.max_pool2d %arg0, %kernel, %ones, %padding, %dilation, %false : !torch.vtensor<[1,3,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,3,8,8],f32>
  %1 = torch.aten.max_pool2d %arg0, %kernel, %short, %padding, %dilation, %false : !torch.vtensor<[1,3,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,3,16,16],f32>
  return %0, %1 : !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,3,16,16],f32>
}

// -----

// TorchToTosa computes arange.start_step's values at compile time:
// floor((end - start) / step) + 1 of them, which an LLVM SmallVector cannot
// hold beyond 2**32 - 1 (an abort; found by the pass fuzzer, seed 31337).
func.func @arange_too_long() -> !torch.vtensor<[2,3],f32> {
  %start = torch.constant.float -3.604534888576224e+16
  %end = torch.constant.int -36276
  %step = torch.constant.int 329017
  %none = torch.constant.none
  // expected-error @+1 {{TorchToTosa's lowering of arange.start_step builds its values at compile time and crashes the process on 109554670081 values from start -3.604534888576224e+16, end -36276, step 329017}}
  %0 = torch.aten.arange.start_step %start, %end, %step, %none, %none, %none, %none : !torch.float, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// It counts a span against a step of the other sign as well (the edge cases).
func.func @arange_too_long_backwards() -> !torch.vtensor<[?],f32> {
  %start = torch.constant.float 0.0
  %end = torch.constant.float -3.6e16
  %step = torch.constant.int 7
  %none = torch.constant.none
  // expected-error @+1 {{crashes the process on 5142857142857143 values from start 0.0, end -3.6e+16, step 7}}
  %0 = torch.aten.arange.start_step %start, %end, %step, %none, %none, %none, %none : !torch.float, !torch.float, !torch.int, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}

// -----

// An integer step of 0 is an integer division by zero there (SIGFPE).
func.func @arange_int_step_zero() -> !torch.vtensor<[?],si64> {
  %int0 = torch.constant.int 0
  %int10 = torch.constant.int 10
  %none = torch.constant.none
  // expected-error @+1 {{crashes the process on an integer step of 0 (a division by zero, SIGFPE)}}
  %0 = torch.aten.arange.start_step %int0, %int10, %int0, %none, %none, %none, %none : !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[?],si64>
  return %0 : !torch.vtensor<[?],si64>
}

// -----

// A float step of 0 makes an infinite count (out of memory, found by the
// pass fuzzer's edge cases); PyTorch refuses any step of 0.
func.func @arange_float_step_zero() -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %float0 = torch.constant.float 0.0
  %end = torch.constant.float -3.6e16
  %none = torch.constant.none
  // expected-error @+1 {{crashes the process on a step of 0 (an infinite count: out of memory)}}
  %0 = torch.aten.arange.start_step %int0, %end, %float0, %none, %none, %none, %none : !torch.int, !torch.float, !torch.float, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}

// -----

// A count that fits lowers: untouched.
// CHECK-LABEL: func.func @arange_lowers(
// CHECK-COUNT-2: torch.aten.arange.start_step
func.func @arange_lowers() -> (!torch.vtensor<[10],f32>, !torch.vtensor<[5],si64>) {
  %float0 = torch.constant.float 0.0
  %float05 = torch.constant.float 0.5
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int5 = torch.constant.int 5
  %none = torch.constant.none
  %0 = torch.aten.arange.start_step %float0, %int5, %float05, %none, %none, %none, %none : !torch.float, !torch.int, !torch.float, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[10],f32>
  %1 = torch.aten.arange.start_step %int0, %int5, %int1, %none, %none, %none, %none : !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[5],si64>
  return %0, %1 : !torch.vtensor<[10],f32>, !torch.vtensor<[5],si64>
}
