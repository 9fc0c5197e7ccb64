// RUN: tosa-custom-opt %s -split-input-file -verify-diagnostics --tosa-custom-check-sign-semantics

// uint8 ordering reads the bits as signed after TorchToTosa: refused.
func.func @uint8_compare(%a: !torch.vtensor<[2],ui8>, %b: !torch.vtensor<[2],ui8>) -> !torch.vtensor<[2],i1> {
  // expected-error @below {{uint8 values reach ops whose result depends on their sign, which torch-mlir's TOSA lowering computes as signed int8 (a silently wrong answer for values above 127): torch.aten.gt.Tensor. Keep it as tosa.custom (list it in backend_legal_ops, or use backend_legal_ops="auto")}}
  %0 = torch.aten.gt.Tensor %a, %b : !torch.vtensor<[2],ui8>, !torch.vtensor<[2],ui8> -> !torch.vtensor<[2],i1>
  return %0 : !torch.vtensor<[2],i1>
}

// -----

// Wrapping arithmetic on uint8 alone gives the same bits: allowed.
func.func @uint8_add(%a: !torch.vtensor<[2],ui8>, %b: !torch.vtensor<[2],ui8>) -> !torch.vtensor<[2],ui8> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %a, %b, %int1 : !torch.vtensor<[2],ui8>, !torch.vtensor<[2],ui8>, !torch.int -> !torch.vtensor<[2],ui8>
  return %0 : !torch.vtensor<[2],ui8>
}

// -----

// Mixed with another dtype the add promotes: 200 + 1 is 201, not -55.
func.func @uint8_promotes(%a: !torch.vtensor<[2],ui8>, %b: !torch.vtensor<[2],si8>) -> !torch.vtensor<[2],si16> {
  %int1 = torch.constant.int 1
  // expected-error @below {{torch.aten.add.Tensor}}
  %0 = torch.aten.add.Tensor %a, %b, %int1 : !torch.vtensor<[2],ui8>, !torch.vtensor<[2],si8>, !torch.int -> !torch.vtensor<[2],si16>
  return %0 : !torch.vtensor<[2],si16>
}

// -----

// bool addition becomes i1 xor: refused; every offending op is reported.
func.func @bool_arithmetic(%a: !torch.vtensor<[2],i1>, %b: !torch.vtensor<[2],i1>) -> !torch.vtensor<[2],i1> {
  %int1 = torch.constant.int 1
  // expected-error @below {{bool tensors reach arithmetic or ordering ops that torch-mlir's TOSA lowering computes on i1 (True + True becomes False, True > False becomes false): torch.aten.add.Tensor}}
  %0 = torch.aten.add.Tensor %a, %b, %int1 : !torch.vtensor<[2],i1>, !torch.vtensor<[2],i1>, !torch.int -> !torch.vtensor<[2],i1>
  // expected-error @below {{torch.aten.maximum}}
  %1 = torch.aten.maximum %0, %b : !torch.vtensor<[2],i1>, !torch.vtensor<[2],i1> -> !torch.vtensor<[2],i1>
  return %1 : !torch.vtensor<[2],i1>
}

// -----

// clamp of bools by bool tensors becomes i1 maximum and minimum (signed
// order, True < False): refused (every-sample OpInfo clamp_max/bool ran wrong in stock mode).
func.func @bool_clamp(%a: !torch.vtensor<[2],i1>, %b: !torch.vtensor<[2],i1>) -> !torch.vtensor<[2],i1> {
  %none = torch.constant.none
  // expected-error @below {{torch.aten.clamp.Tensor}}
  %0 = torch.aten.clamp.Tensor %a, %none, %b : !torch.vtensor<[2],i1>, !torch.none, !torch.vtensor<[2],i1> -> !torch.vtensor<[2],i1>
  // expected-error @below {{torch.aten.clamp_min.Tensor}}
  %1 = torch.aten.clamp_min.Tensor %0, %b : !torch.vtensor<[2],i1>, !torch.vtensor<[2],i1> -> !torch.vtensor<[2],i1>
  return %1 : !torch.vtensor<[2],i1>
}

// -----

// bool mul is logical and, as i1 tosa.mul computes it: allowed.
func.func @bool_mul(%a: !torch.vtensor<[2],i1>, %b: !torch.vtensor<[2],i1>) -> !torch.vtensor<[2],i1> {
  %0 = torch.aten.mul.Tensor %a, %b : !torch.vtensor<[2],i1>, !torch.vtensor<[2],i1> -> !torch.vtensor<[2],i1>
  return %0 : !torch.vtensor<[2],i1>
}

// -----

// bool <-> uint8 casts read only whether a value is zero: allowed; uint8 -> int32 widens by the sign: refused.
func.func @uint8_bool_casts(%a: !torch.vtensor<[2],i1>, %b: !torch.vtensor<[2],ui8>) -> (!torch.vtensor<[2],ui8>, !torch.vtensor<[2],i1>, !torch.vtensor<[2],si32>) {
  %int0 = torch.constant.int 0
  %int3 = torch.constant.int 3
  %int11 = torch.constant.int 11
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %a, %int0, %false, %false, %none : !torch.vtensor<[2],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[2],ui8>
  %1 = torch.aten.to.dtype %b, %int11, %false, %false, %none : !torch.vtensor<[2],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[2],i1>
  // expected-error @below {{torch.aten.to.dtype}}
  %2 = torch.aten.to.dtype %b, %int3, %false, %false, %none : !torch.vtensor<[2],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[2],si32>
  return %0, %1, %2 : !torch.vtensor<[2],ui8>, !torch.vtensor<[2],i1>, !torch.vtensor<[2],si32>
}
