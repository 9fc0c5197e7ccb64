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
