// RUN: tosa-custom-opt %s -split-input-file --tosa-custom-vulkan-shader-constants | FileCheck %s

// Two shaders read equal constants (LayerNorm's all-ones weight and all-zeros
// bias, reshaped to the shader's flat type): the first keeps its non-splat
// constant, a splat and a repeat become padded copies of their own, each
// unequal to any other shader constant.
// CHECK-LABEL: func.func @shared
// CHECK:         %[[W:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK:         %[[WR:.*]] = tosa.reshape %[[W]]
// CHECK:         %[[Z1:.*]] = "tosa.const"() <{values = dense_resource<tosa_custom_vulkan_copy_{{[0-9]+}}> : tensor<1x5xf32>}>
// CHECK:         tosa.custom %{{.*}}, %[[WR]], %[[Z1]] {domain_name = "com.arm.VulkanCustomShader"
// CHECK:         %[[W2:.*]] = "tosa.const"() <{values = dense_resource<tosa_custom_vulkan_copy_{{[0-9]+}}> : tensor<1x5xf32>}>
// CHECK:         %[[Z2:.*]] = "tosa.const"() <{values = dense_resource<tosa_custom_vulkan_copy_{{[0-9]+}}> : tensor<1x6xf32>}>
// CHECK:         tosa.custom %{{.*}}, %[[W2]], %[[Z2]] {domain_name = "com.arm.VulkanCustomShader"
func.func @shared(%x: tensor<8xf32>) -> tensor<8xf32> {
  %w = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %w2 = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %s = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %wr = tosa.reshape %w, %s : (tensor<4xf32>, !tosa.shape<2>) -> tensor<1x4xf32>
  %zr = tosa.reshape %z, %s : (tensor<4xf32>, !tosa.shape<2>) -> tensor<1x4xf32>
  %w2r = tosa.reshape %w2, %s : (tensor<4xf32>, !tosa.shape<2>) -> tensor<1x4xf32>
  %0 = tosa.custom %x, %wr, %zr {domain_name = "com.arm.VulkanCustomShader", implementation_attrs = "{}", operator_name = "torch.aten.layer_norm"} : (tensor<8xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<8xf32>
  %1 = tosa.abs %0 : (tensor<8xf32>) -> tensor<8xf32>
  %2 = tosa.custom %1, %w2r, %zr {domain_name = "com.arm.VulkanCustomShader", implementation_attrs = "{}", operator_name = "torch.aten.layer_norm"} : (tensor<8xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// Distinct non-splat constants, and an op of another domain: nothing changes.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT:     tosa_custom_vulkan_copy
// CHECK:         return
func.func @distinct(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = "tosa.const"() <{values = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %b = "tosa.const"() <{values = dense<[3.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = tosa.custom %x, %a {domain_name = "com.arm.VulkanCustomShader", implementation_attrs = "{}", operator_name = "torch.aten.mul.Tensor"} : (tensor<8xf32>, tensor<2xf32>) -> tensor<8xf32>
  %1 = tosa.custom %0, %b {domain_name = "com.arm.VulkanCustomShader", implementation_attrs = "{}", operator_name = "torch.aten.mul.Tensor"} : (tensor<8xf32>, tensor<2xf32>) -> tensor<8xf32>
  %2 = tosa.custom %1, %z {domain_name = "torch_mlir", implementation_attrs = "{}", operator_name = "torch.aten.add.Tensor"} : (tensor<8xf32>, tensor<2xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
