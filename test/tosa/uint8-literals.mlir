// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-uint8-literals | FileCheck %s

// A uint8 literal becomes a tosa.const of its int8 bits (200 is -56), behind
// a tosa.identity so that torch-mlir does not fold it back into a literal.
// CHECK-LABEL: func.func @uint8_literal(
// CHECK:         %[[C:.*]] = "tosa.const"() <{values = dense<[0, -56, 127]> : tensor<3xi8>}> : () -> tensor<3xi8>
// CHECK:         %[[I:.*]] = tosa.identity %[[C]] : (tensor<3xi8>) -> tensor<3xi8>
// CHECK:         torch_c.from_builtin_tensor %[[I]] : tensor<3xi8> -> !torch.vtensor<[3],ui8>
// CHECK-NOT:     torch.vtensor.literal
func.func @uint8_literal() -> !torch.vtensor<[3],ui8> {
  %0 = torch.vtensor.literal(dense<[0, 200, 127]> : tensor<3xui8>) : !torch.vtensor<[3],ui8>
  return %0 : !torch.vtensor<[3],ui8>
}

// -----

// A splat keeps its shape; literals of other types stay.
// CHECK-LABEL: func.func @splat_and_others(
// CHECK:         "tosa.const"() <{values = dense<-1> : tensor<2x2xi8>}>
// CHECK:         torch.vtensor.literal(dense<5> : tensor<2xsi8>)
func.func @splat_and_others() -> (!torch.vtensor<[2,2],ui8>, !torch.vtensor<[2],si8>) {
  %0 = torch.vtensor.literal(dense<255> : tensor<2x2xui8>) : !torch.vtensor<[2,2],ui8>
  %1 = torch.vtensor.literal(dense<5> : tensor<2xsi8>) : !torch.vtensor<[2],si8>
  return %0, %1 : !torch.vtensor<[2,2],ui8>, !torch.vtensor<[2],si8>
}
