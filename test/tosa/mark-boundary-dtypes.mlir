// RUN: tosa-custom-opt %s --tosa-custom-mark-boundary-dtypes | FileCheck %s

// TOSA types uint8 as i8; the mark tells the runtime (and a backend) what
// the argument and result hold. Other arguments and their attributes stay.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %{{.*}}: !torch.vtensor<[2],ui8> {tosa_custom.dtype = "uint8"}
// CHECK-SAME:    %{{.*}}: !torch.vtensor<[2],f32> {tosa_custom.weight = "w"}
// CHECK-SAME:    -> (!torch.vtensor<[2],ui8> {tosa_custom.dtype = "uint8"}, !torch.vtensor<[2],f32>)
func.func @forward(%arg0: !torch.vtensor<[2],ui8>, %arg1: !torch.vtensor<[2],f32> {tosa_custom.weight = "w"}) -> (!torch.vtensor<[2],ui8>, !torch.vtensor<[2],f32>) {
  return %arg0, %arg1 : !torch.vtensor<[2],ui8>, !torch.vtensor<[2],f32>
}

// A private function is not the program's boundary.
// CHECK-LABEL: func.func private @helper(
// CHECK-NOT:     tosa_custom.dtype
func.func private @helper(%arg0: !torch.vtensor<[2],ui8>) -> !torch.vtensor<[2],ui8> {
  return %arg0 : !torch.vtensor<[2],ui8>
}
