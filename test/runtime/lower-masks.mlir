// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-lower-masks | FileCheck %s
// Masked vectors (a `?` remainder vectorized with masks) out of their
// vector.mask regions, before bufferization: a transfer takes the mask as an
// operand; a reduction reduces its source with the masked-off lanes set to
// the reduction's neutral element; a masked write into the leading lanes of a
// tensor one vector covers writes the whole vector, masked-off lanes kept.

// CHECK-LABEL: func.func @masked_sum(
// CHECK-SAME:      %[[T:.*]]: tensor<1x?xf32>, %[[ACC:.*]]: vector<1xf32>, %[[N:.*]]: index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x8xf32>
// CHECK:         %[[MASK:.*]] = vector.create_mask %{{.*}}, %[[N]] : vector<1x8xi1>
// CHECK:         %[[READ:.*]] = vector.transfer_read %[[T]]{{.*}}, %[[MASK]] {in_bounds = [true, true]} : tensor<1x?xf32>, vector<1x8xf32>
// CHECK:         %[[SEL:.*]] = arith.select %[[MASK]], %[[READ]], %[[ZERO]] : vector<1x8xi1>, vector<1x8xf32>
// CHECK:         %[[SUM:.*]] = vector.multi_reduction <add>, %[[SEL]], %[[ACC]] [1] : vector<1x8xf32> to vector<1xf32>
// CHECK:         return %[[SUM]]
// CHECK-NOT:     vector.mask
func.func @masked_sum(%t: tensor<1x?xf32>, %acc: vector<1xf32>, %n: index) -> vector<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = ub.poison : f32
  %m = vector.create_mask %c1, %n : vector<1x8xi1>
  %v = vector.mask %m { vector.transfer_read %t[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<1x?xf32>, vector<1x8xf32> } : vector<1x8xi1> -> vector<1x8xf32>
  %r = vector.mask %m { vector.multi_reduction <add>, %v, %acc [1] : vector<1x8xf32> to vector<1xf32> } : vector<1x8xi1> -> vector<1xf32>
  return %r : vector<1xf32>
}

// -----

// The neutral element of a max is -inf; a masked write keeps its mask.
// CHECK-LABEL: func.func @masked_max_and_write(
// CHECK-DAG:     %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK:         %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK:         %[[SEL:.*]] = arith.select %[[MASK]], %{{.*}}, %[[NEG]] : vector<16xi1>, vector<16xf32>
// CHECK:         vector.multi_reduction <maximumf>, %[[SEL]], %{{.*}} [0] : vector<16xf32> to f32
// CHECK:         vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}], %[[MASK]] {in_bounds = [true]} : vector<16xf32>, tensor<?xf32>
// CHECK-NOT:     vector.mask
func.func @masked_max_and_write(%v: vector<16xf32>, %acc: f32, %t: tensor<?xf32>, %n: index) -> (f32, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %m = vector.create_mask %n : vector<16xi1>
  %r = vector.mask %m { vector.multi_reduction <maximumf>, %v, %acc [0] : vector<16xf32> to f32 } : vector<16xi1> -> f32
  %w = vector.mask %m { vector.transfer_write %v, %t[%c0] {in_bounds = [true]} : vector<16xf32>, tensor<?xf32> } : vector<16xi1> -> tensor<?xf32>
  return %r, %w : f32, tensor<?xf32>
}

// -----

// A reduction's partial results (a 1x16 vector of them) take a row's
// remainder: the masked write into their leading r lanes becomes a write of
// all 16, the lanes beyond r selected from what they were, and the masked
// read of those lanes a read of all 16 (registers, not memory).
// CHECK-LABEL: func.func @partial_results_remainder(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<1x?xf32>, %[[ACC:[^:]*]]: tensor<1x16xf32>
// CHECK:         %[[FULL:.*]] = vector.transfer_read %[[ACC]]{{.*}} {in_bounds = [true, true]} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK:         %[[MASK:.*]] = vector.create_mask
// CHECK:         %[[XV:.*]] = vector.transfer_read %{{.*}}, %[[MASK]] {{.*}} : tensor<1x?xf32>, vector<1x16xf32>
// CHECK:         %[[SUM:.*]] = arith.addf %[[XV]], %[[FULL]] : vector<1x16xf32>
// CHECK:         %[[SEL:.*]] = arith.select %[[MASK]], %[[SUM]], %[[FULL]] : vector<1x16xi1>, vector<1x16xf32>
// CHECK:         %[[W:.*]] = vector.transfer_write %[[SEL]], %[[ACC]]{{.*}} {in_bounds = [true, true]} : vector<1x16xf32>, tensor<1x16xf32>
// CHECK:         return %[[W]]
// CHECK-NOT:     vector.mask
// CHECK-NOT:     tensor.insert_slice
func.func @partial_results_remainder(%x: tensor<1x?xf32>, %acc: tensor<1x16xf32>, %r: index) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = ub.poison : f32
  %xs = tensor.extract_slice %x[0, 0] [1, %r] [1, 1] : tensor<1x?xf32> to tensor<1x?xf32>
  %as = tensor.extract_slice %acc[0, 0] [1, %r] [1, 1] : tensor<1x16xf32> to tensor<1x?xf32>
  %m = vector.create_mask %c1, %r : vector<1x16xi1>
  %xv = vector.mask %m { vector.transfer_read %xs[%c0, %c0], %p {in_bounds = [true, true]} : tensor<1x?xf32>, vector<1x16xf32> } : vector<1x16xi1> -> vector<1x16xf32>
  %av = vector.mask %m { vector.transfer_read %as[%c0, %c0], %p {in_bounds = [true, true]} : tensor<1x?xf32>, vector<1x16xf32> } : vector<1x16xi1> -> vector<1x16xf32>
  %s = arith.addf %xv, %av : vector<1x16xf32>
  %w = vector.mask %m { vector.transfer_write %s, %as[%c0, %c0] {in_bounds = [true, true]} : vector<1x16xf32>, tensor<1x?xf32> } : vector<1x16xi1> -> tensor<1x?xf32>
  %i = tensor.insert_slice %w into %acc[0, 0] [1, %r] [1, 1] : tensor<1x?xf32> into tensor<1x16xf32>
  return %i : tensor<1x16xf32>
}

// -----

// The same into a tensor of more than one vector (an elementwise op's `?`
// result): only the masked lanes may be written, the write stays masked.
// CHECK-LABEL: func.func @masked_write_into_a_bigger_tensor(
// CHECK:         vector.transfer_write %{{.*}}, %{{.*}}, %{{.*}} {in_bounds = [true, true]} : vector<1x16xf32>, tensor<1x?xf32>
// CHECK:         tensor.insert_slice
func.func @masked_write_into_a_bigger_tensor(%v: vector<1x16xf32>, %out: tensor<1x32xf32>, %r: index) -> tensor<1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %os = tensor.extract_slice %out[0, 0] [1, %r] [1, 1] : tensor<1x32xf32> to tensor<1x?xf32>
  %m = vector.create_mask %c1, %r : vector<1x16xi1>
  %w = vector.mask %m { vector.transfer_write %v, %os[%c0, %c0] {in_bounds = [true, true]} : vector<1x16xf32>, tensor<1x?xf32> } : vector<1x16xi1> -> tensor<1x?xf32>
  %i = tensor.insert_slice %w into %out[0, 0] [1, %r] [1, 1] : tensor<1x?xf32> into tensor<1x32xf32>
  return %i : tensor<1x32xf32>
}
